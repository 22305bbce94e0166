/**
 * Lighthouse 12 (mobile, its default) on one URL with the system Chromium: the performance and
 * accessibility scores, the metrics behind performance, and the binary audits that failed. Shared by
 * `npm run bench:docs` (docs.ts) and `npm run bench` (public.ts).
 */
import { CHROMIUM_PATH } from '../scripts/lib/renderer.ts';

export const CHROMIUM = CHROMIUM_PATH;

export interface LighthouseScores {
  performance: number;
  accessibility: number;
  /** First and largest contentful paint, total blocking time (ms), and bytes transferred. */
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  transferKb: number;
  failedAudits: string[];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

type Run = NonNullable<Awaited<ReturnType<typeof import('lighthouse').default>>>;
type Lhr = Run['lhr'];

/** One Lighthouse run (mobile, performance and accessibility) of `url`: its whole report and artifacts (the trace). */
export async function lighthouseRun(url: string): Promise<Run> {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
  // Lighthouse's protocol timeouts (PROTOCOL_TIMEOUT, on a busy machine) reject a promise nobody awaits:
  // left alone, Node ends the whole benchmark on it. While this run lasts, such a rejection fails the run.
  let onStray: (err: unknown) => void = () => {};
  const strayed = new Promise<never>((_, reject) => {
    onStray = reject;
  });
  process.on('unhandledRejection', onStray);
  try {
    const result = await Promise.race([
      lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] }),
      strayed,
    ]);
    if (!result?.lhr) throw new Error(`Lighthouse gave no result for ${url}`);
    if (result.lhr.runtimeError) throw new Error(`Lighthouse: ${result.lhr.runtimeError.message}`);
    return result;
  } finally {
    process.off('unhandledRejection', onStray);
    chrome.kill();
  }
}

/** The figures of one report. */
export function scoresOf(lhr: Lhr): LighthouseScores {
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const value = (id: string) => Math.round(lhr.audits[id]?.numericValue ?? 0);
  const failedAudits = Object.values(lhr.audits)
    .filter((a) => a.scoreDisplayMode === 'binary' && a.score === 0)
    .map((a) => a.id);
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    fcpMs: value('first-contentful-paint'),
    lcpMs: value('largest-contentful-paint'),
    tbtMs: value('total-blocking-time'),
    transferKb: Math.round(value('total-byte-weight') / 1024),
    failedAudits,
  };
}

const lighthouseOnce = async (url: string): Promise<LighthouseScores> => scoresOf((await lighthouseRun(url)).lhr);

/** The median of each figure over `runs` runs, and every audit that failed in any of them. */
export async function lighthouseMedian(url: string, runs: number): Promise<LighthouseScores> {
  const results: LighthouseScores[] = [];
  let lastError: unknown = null;
  for (let i = 0; i < runs; i++) {
    // A run that Lighthouse gives up on (a busy machine) is left out; the median is of the others.
    try {
      results.push(await lighthouseOnce(url));
    } catch (err) {
      lastError = err;
    }
  }
  if (!results.length) throw lastError ?? new Error(`Lighthouse gave no result for ${url}`);
  const m = (k: keyof Omit<LighthouseScores, 'failedAudits'>) => median(results.map((r) => r[k]));
  return {
    performance: m('performance'),
    accessibility: m('accessibility'),
    fcpMs: m('fcpMs'),
    lcpMs: m('lcpMs'),
    tbtMs: m('tbtMs'),
    transferKb: m('transferKb'),
    failedAudits: [...new Set(results.flatMap((r) => r.failedAudits))],
  };
}
