/**
 * The renderer of PDF and PNG exports for local use (`npm start`, the test stack): a small HTTP service
 * around headless Chromium (Debian's /usr/bin/chromium through playwright-core). The API worker cannot
 * run a browser inside workerd, so it calls this over HTTP at RENDERER_URL
 * (worker-api/src/resources/export-jobs/renderer.ts). In production the same call would go to
 * Cloudflare Browser Rendering; this file is the stand-in that makes the real thing run on one machine.
 *
 *   POST /render  {url, format: "pdf"|"png", width, height?, color_mode: "light"|"dark"}
 *     → 200 the file (application/pdf or image/png), or 4xx/5xx {error}
 *   GET  /health  → {ok: true}
 *
 * Only pages of the web app's origin (--app-origin, repeatable) are opened, and only its `/render/`
 * print views: the service cannot be used to fetch other addresses. The page marks
 * `<html data-render-state="ready">` once every report has drawn (or "error" with a message); the file
 * is taken then. One browser is kept and each render gets a fresh context.
 *
 * Run alone: `node --import tsx scripts/lib/renderer.ts --port 8787 --app-origin http://127.0.0.1:8780`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import type { Supervisor } from './procs.ts';

const require = createRequire(import.meta.url);

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** How long a page may take until every report has drawn. */
const PAGE_TIMEOUT_MS = 60_000;
const MAX_BODY = 64 * 1024;
/** At most this many pages render at once; more requests wait their turn. */
const MAX_PARALLEL = 2;

interface RenderInput {
  url: string;
  format: 'pdf' | 'png';
  width: number;
  height?: number;
  color_mode: 'light' | 'dark';
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function parseInput(body: unknown, origins: string[]): RenderInput {
  const b = body as Partial<RenderInput> | null;
  if (!b || typeof b !== 'object') throw new HttpProblem(400, 'The body must be a JSON object.');
  if (b.format !== 'pdf' && b.format !== 'png') throw new HttpProblem(422, 'format must be "pdf" or "png".');
  if (typeof b.width !== 'number' || !Number.isInteger(b.width) || b.width < 320 || b.width > 4000)
    throw new HttpProblem(422, 'width must be a whole number of pixels from 320 to 4000.');
  if (b.height !== undefined && (typeof b.height !== 'number' || !Number.isInteger(b.height) || b.height < 200 || b.height > 4000))
    throw new HttpProblem(422, 'height must be from 200 to 4000.');
  const mode = b.color_mode ?? 'light';
  if (mode !== 'light' && mode !== 'dark') throw new HttpProblem(422, 'color_mode must be "light" or "dark".');
  let url: URL;
  try {
    url = new URL(String(b.url));
  } catch {
    throw new HttpProblem(422, 'url is not a URL.');
  }
  if (!origins.includes(url.origin) || !url.pathname.startsWith('/render/')) {
    throw new HttpProblem(403, `Only print views (/render/…) of ${origins.join(', ') || 'the configured app'} are rendered.`);
  }
  return { url: url.href, format: b.format, width: b.width, height: b.height, color_mode: mode };
}

interface Renderer {
  render(input: RenderInput): Promise<Buffer>;
  close(): Promise<void>;
}

function createRenderer(opts: { executablePath?: string } = {}): Renderer {
  let browser: Promise<Browser> | null = null;
  let active = 0;
  const waiting: (() => void)[] = [];
  const getBrowser = () => {
    browser ??= (async () => {
      const { chromium } = require('playwright-core') as typeof import('playwright-core');
      const b = await chromium.launch({ executablePath: opts.executablePath ?? CHROMIUM_PATH, args: CHROMIUM_FLAGS });
      b.on('disconnected', () => {
        browser = null;
      });
      return b;
    })().catch((err) => {
      browser = null;
      throw err;
    });
    return browser;
  };
  const slot = async () => {
    if (active >= MAX_PARALLEL) await new Promise<void>((r) => waiting.push(r));
    active++;
  };
  const release = () => {
    active--;
    waiting.shift()?.();
  };

  return {
    async render(input) {
      await slot();
      const b = await getBrowser().catch((err: Error) => {
        release();
        throw new HttpProblem(503, `Chromium could not start (${opts.executablePath ?? CHROMIUM_PATH}): ${err.message}`);
      });
      const height = input.height ?? 900;
      const context = await b.newContext({ viewport: { width: input.width, height }, deviceScaleFactor: 1, colorScheme: input.color_mode });
      try {
        const page = await context.newPage();
        await page.goto(input.url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
        const state = await page
          .waitForFunction(
            () => {
              const s = document.documentElement.getAttribute('data-render-state');
              return s === 'ready' || s === 'error' ? s : null;
            },
            undefined,
            { timeout: PAGE_TIMEOUT_MS, polling: 100 },
          )
          .then((h) => h.jsonValue())
          .catch(() => {
            throw new HttpProblem(504, `The print view did not finish drawing within ${PAGE_TIMEOUT_MS / 1000} s.`);
          });
        if (state === 'error') {
          const message = await page.evaluate(() => document.documentElement.getAttribute('data-render-error') ?? 'The print view could not be drawn.');
          throw new HttpProblem(422, message);
        }
        if (input.format === 'png') {
          return await page.screenshot({ type: 'png', fullPage: input.height === undefined });
        }
        await page.emulateMedia({ media: 'screen' });
        const full = await page.evaluate(() => Math.ceil(document.documentElement.scrollHeight));
        return await page.pdf({ width: `${input.width}px`, height: `${Math.max(input.height ?? 0, full)}px`, printBackground: true, pageRanges: '1' });
      } finally {
        await context.close().catch(() => {});
        release();
      }
    },
    async close() {
      const b = await browser?.catch(() => null);
      await b?.close().catch(() => {});
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const piece of req) {
    size += (piece as Buffer).length;
    if (size > MAX_BODY) throw new HttpProblem(413, 'The body is too large.');
    parts.push(piece as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'The body is not valid JSON.');
  }
}

async function startRendererServer(opts: { port: number; host?: string; appOrigins: string[]; log?: boolean }) {
  const renderer = createRenderer();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    void (async () => {
      try {
        if (req.method === 'GET' && req.url === '/health') return send(res, 200, { ok: true, service: 'cairn-renderer' });
        if (req.method !== 'POST' || req.url !== '/render') throw new HttpProblem(404, 'Use POST /render.');
        const input = parseInput(await readJson(req), opts.appOrigins);
        const started = Date.now();
        const file = await renderer.render(input);
        if (opts.log) console.log(`rendered ${input.format} ${input.width}px ${input.color_mode} in ${Date.now() - started} ms (${file.length} bytes)`);
        res.writeHead(200, { 'content-type': input.format === 'pdf' ? 'application/pdf' : 'image/png', 'content-length': String(file.length) });
        res.end(file);
      } catch (err) {
        const status = err instanceof HttpProblem ? err.status : 500;
        if (opts.log) console.log(`render failed (${status}): ${(err as Error).message}`);
        send(res, status, { error: (err as Error).message });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    port,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      await renderer.close();
    },
  };
}

/** Starts the renderer as a child process of the stack (like the SMTP catcher) and waits until it listens. */
export async function startRendererProcess(
  sup: Supervisor,
  opts: { port: number; appOrigin: string; quiet?: boolean; repoRoot: string },
): Promise<{ url: string }> {
  const script = join(opts.repoRoot, 'scripts/lib/renderer.ts');
  const child = sup.spawn('renderer', process.execPath, ['--import', 'tsx', script, '--port', String(opts.port), '--app-origin', opts.appOrigin], {
    quiet: opts.quiet,
    cwd: opts.repoRoot,
  });
  const deadline = Date.now() + 30_000;
  while (!child.tail.some((l) => l.startsWith('listening: renderer'))) {
    if (!child.running) throw new Error(`the renderer did not start. ${child.describeExit()}`);
    if (Date.now() > deadline) throw new Error('the renderer did not start listening within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${opts.port}` };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      'app-origin': { type: 'string', multiple: true, default: [] },
    },
    strict: true,
  });
  const server = await startRendererServer({
    port: Number(values.port),
    host: values.host,
    appOrigins: values['app-origin'].map((o) => new URL(o).origin),
    log: true,
  });
  console.log(`listening: renderer http://${values.host}:${server.port}/render (Chromium ${CHROMIUM_PATH})`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
