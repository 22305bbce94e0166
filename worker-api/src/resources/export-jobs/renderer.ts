/**
 * PDF and PNG files come from a real browser that opens the web app's print view (`/render/{token}`,
 * remix-app/app/routes/render.$token.tsx) and prints or photographs it once every report has drawn.
 *
 * Two renderers stand behind `renderFile`, chosen by configuration (RENDERER):
 * - `service` (default): a service of its own, reached over HTTP at `RENDERER_URL`: `POST {RENDERER_URL}/render`
 *   with `{url, format, width, height?, color_mode}` answers the file's bytes. Locally (npm start, the test
 *   stack) that is `scripts/lib/renderer.ts`, headless Chromium through playwright-core.
 * - `browser`: Cloudflare Browser Rendering through the `BROWSER` binding (renderer-browser.ts), in production.
 * Without a renderer, PDF/PNG work fails at once with a clear message instead of waiting.
 */
import type { InputParameters } from '@cairn/core';
import type { Env } from '../../env.ts';
import { signRenderToken } from './render-token.ts';
import { renderWithBrowser } from './renderer-browser.ts';

const RENDER_TIMEOUT_MS = 90_000;

export class RenderError extends Error {}

export interface RenderRequest {
  organizationId: string;
  dashboardId: string;
  reportId: string | null;
  parameters: InputParameters;
  mode: 'light' | 'dark';
  width: number;
  /** A single report is drawn at its own height (default_page_height); a dashboard as tall as it is. */
  height?: number | null;
  format: 'pdf' | 'png';
}

const NO_RENDERER = 'PDF and PNG exports need the renderer service, and this server has none configured (RENDERER_URL is not set).';

/** The file, or a RenderError whose message says what went wrong (it becomes the job's error_message). */
export async function renderFile(env: Env, req: RenderRequest): Promise<{ bytes: Uint8Array; contentType: string }> {
  const useBrowser = env.RENDERER === 'browser';
  if (useBrowser && !env.BROWSER) throw new RenderError('RENDERER is "browser" but this server has no BROWSER binding (Cloudflare Browser Rendering).');
  if (!useBrowser && !env.RENDERER_URL) throw new RenderError(NO_RENDERER);
  if (!env.APP_URL) throw new RenderError('PDF and PNG exports need APP_URL (the web app the renderer opens), which is not set on this server.');
  const token = await signRenderToken(
    {
      org: req.organizationId,
      dashboard: req.dashboardId,
      report: req.reportId,
      parameters: req.parameters,
      mode: req.mode,
      width: req.width,
    },
    env.SECRET_KEY,
  );
  // ?theme= makes the root layout draw the colour mode from the first byte (remix-app/app/root.tsx).
  const url = `${env.APP_URL.replace(/\/+$/, '')}/render/${token}?theme=${req.mode}`;
  const contentType = req.format === 'pdf' ? 'application/pdf' : 'image/png';
  if (useBrowser) {
    const bytes = await renderWithBrowser(
      env.BROWSER!,
      {
        url,
        format: req.format,
        width: req.width,
        ...(req.reportId ? { height: req.height ?? 600 } : {}),
        mode: req.mode,
        timeoutMs: RENDER_TIMEOUT_MS,
      },
      (message) => new RenderError(message),
    );
    return { bytes: checked(bytes, req.format), contentType };
  }
  let res: Response;
  try {
    res = await fetch(`${env.RENDERER_URL!.replace(/\/+$/, '')}/render`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url, format: req.format, width: req.width, ...(req.reportId ? { height: req.height ?? 600 } : {}), color_mode: req.mode }),
      signal: AbortSignal.timeout(RENDER_TIMEOUT_MS),
    });
  } catch (err) {
    const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new RenderError(
      timeout ? `The renderer did not answer within ${RENDER_TIMEOUT_MS / 1000} s.` : `The renderer could not be reached (${(err as Error).message}).`,
    );
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let detail = text.slice(0, 500);
    try {
      detail = (JSON.parse(text) as { error?: string }).error ?? detail;
    } catch {
      /* plain text */
    }
    throw new RenderError(`The renderer failed (HTTP ${res.status}): ${detail || 'no detail'}`);
  }
  return { bytes: checked(new Uint8Array(await res.arrayBuffer()), req.format), contentType };
}

/** The bytes, if they start as a PDF or PNG file does. */
function checked(bytes: Uint8Array, format: 'pdf' | 'png'): Uint8Array {
  const ok = format === 'pdf' ? bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 : bytes[0] === 0x89 && bytes[1] === 0x50;
  if (!ok) throw new RenderError(`The renderer answered something that is not a ${format.toUpperCase()} file.`);
  return bytes;
}
