/**
 * PDF/PNG through Cloudflare Browser Rendering (the `BROWSER` binding, driven by @cloudflare/puppeteer):
 * the production renderer when RENDERER=browser. It does what the local Chromium service does
 * (scripts/lib/renderer.ts): open the print view, wait for `data-render-state` ready or error, then
 * photograph or print the page. Not run by the test suites (there is no Browser Rendering on loopback);
 * the local renderer, behind the same renderFile call, is.
 */
import type { RenderError as RenderErrorType } from './renderer.ts';

/** The page's globals these functions read (they run in the browser, not in the worker). */
type PageGlobal = { document: { documentElement: { getAttribute(name: string): string | null; scrollHeight: number } } };

export interface BrowserRenderInput {
  url: string;
  format: 'pdf' | 'png';
  width: number;
  /** A single report's height; a dashboard is drawn as tall as it is. */
  height?: number;
  mode: 'light' | 'dark';
  timeoutMs: number;
}

export async function renderWithBrowser(binding: Fetcher, input: BrowserRenderInput, fail: (message: string) => RenderErrorType): Promise<Uint8Array> {
  const puppeteer = (await import('@cloudflare/puppeteer')).default;
  let browser: Awaited<ReturnType<typeof puppeteer.launch>>;
  try {
    browser = await puppeteer.launch(binding);
  } catch (err) {
    throw fail(`Browser Rendering could not start a browser (${(err as Error).message}).`);
  }
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: input.width, height: input.height ?? 900, deviceScaleFactor: 1 });
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: input.mode }]);
    await page.goto(input.url, { waitUntil: 'load', timeout: input.timeoutMs });
    const state = await page
      .waitForFunction(
        () => {
          const s = (globalThis as unknown as PageGlobal).document.documentElement.getAttribute('data-render-state');
          return s === 'ready' || s === 'error' ? s : null;
        },
        { timeout: input.timeoutMs, polling: 100 },
      )
      .then((h) => h.jsonValue())
      .catch(() => {
        throw fail(`The print view did not finish drawing within ${input.timeoutMs / 1000} s.`);
      });
    if (state === 'error') {
      throw fail(
        await page.evaluate(
          () => (globalThis as unknown as PageGlobal).document.documentElement.getAttribute('data-render-error') ?? 'The print view could not be drawn.',
        ),
      );
    }
    if (input.format === 'png') {
      return new Uint8Array(await page.screenshot({ type: 'png', fullPage: input.height === undefined }));
    }
    await page.emulateMediaType('screen');
    const full = await page.evaluate(() => Math.ceil((globalThis as unknown as PageGlobal).document.documentElement.scrollHeight));
    return new Uint8Array(
      await page.pdf({ width: `${input.width}px`, height: `${Math.max(input.height ?? 0, full)}px`, printBackground: true, pageRanges: '1' }),
    );
  } finally {
    await browser.close().catch(() => {});
  }
}
