/**
 * The paths anonymous viewers of an embedded public link take (issue 19), measured by `npm run bench`
 * (run.ts) on its own stack:
 * - `POST /public/links/{token}` (what the public page draws first) under the same load as the other
 *   rows of run.ts's table (so beside the bare route of the same run);
 * - a burst of `--burst` concurrent viewers (default 1,000) polling `POST /public/links/{token}/status`
 *   of a link to the demo dashboard, cold (their first polls start the executions), beside the bare
 *   route under as many connections in the same run; the executions they caused are counted;
 * - Lighthouse 12 mobile of the public page `/s/{token}` and of `/app/login` (with the web app).
 */
import autocannon, { type Result } from 'autocannon';
import postgres from 'postgres';
import { say } from '../scripts/lib/log.ts';
import { lighthouseMedian, type LighthouseScores } from './lighthouse.ts';

export interface PublicLink {
  id: string;
  token: string;
  dashboardId: string;
}

/** A fresh sharing link to the demo dashboard (no password, no allow-list: the common embed). */
export async function makePublicLink(api: string, apiKey: string, dashboardId: string): Promise<PublicLink> {
  const res = await fetch(`${api}/dashboard_sharing_links`, {
    method: 'POST',
    headers: { authorization: `Api ${apiKey}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({
      data: {
        type: 'dashboard_sharing_links',
        attributes: { name: 'Bench embed' },
        relationships: { dashboard: { data: { type: 'dashboards', id: dashboardId } } },
      },
    }),
  });
  const doc = (await res.json()) as { data?: { id: string; attributes: { token: string } } };
  if (res.status !== 201 || !doc.data) throw new Error(`creating a sharing link answered ${res.status}`);
  return { id: doc.data.id, token: doc.data.attributes.token, dashboardId };
}

export const publicOpen = (link: PublicLink) => ({
  path: `/public/links/${link.token}`,
  method: 'POST',
  body: '{"query":""}',
  headers: { 'content-type': 'application/json' },
});

export interface BurstResult {
  viewers: number;
  executions: number;
  reports: number;
  status: Result;
  bare: Result;
}

/**
 * `viewers` connections poll the link's status for `duration` seconds (each sends its next poll when
 * the last is answered), starting before any result exists; then the bare route under as many.
 */
export async function statusBurst(api: string, link: PublicLink, dbUrl: string, viewers: number, duration: number): Promise<BurstResult> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const count = async (q: Promise<{ n: number }[]>) => (await q)[0]?.n ?? 0;
    const runs = () =>
      count(sql<{ n: number }[]>`select count(*)::int as n from executions e join reports r on r.id = e.report_id where r.dashboard_id = ${link.dashboardId}`);
    const reports = await count(sql<{ n: number }[]>`select count(*)::int as n from reports where dashboard_id = ${link.dashboardId}`);
    const before = await runs();
    say(`public status burst: ${viewers} viewers of a link to a dashboard of ${reports} reports, ${duration} s…`);
    const status = await autocannon({
      url: `${api}/public/links/${link.token}/status`,
      method: 'POST',
      body: '{"query":""}',
      headers: { 'content-type': 'application/json' },
      connections: viewers,
      duration,
      timeout: 20,
    });
    const after = await runs();
    say(`    status: p50 ${status.latency.p50} ms, p99 ${status.latency.p99} ms, ${status.requests.total} polls; executions caused: ${after - before}`);
    await autocannon({ url: `${api}/bench/bare`, connections: viewers, duration: 2, timeout: 20 });
    const bare = await autocannon({ url: `${api}/bench/bare`, connections: viewers, duration, timeout: 20 });
    say(`    bare: p50 ${bare.latency.p50} ms, p99 ${bare.latency.p99} ms`);
    return { viewers, executions: after - before, reports, status, bare };
  } finally {
    await sql.end();
  }
}

export interface PageScores {
  label: string;
  route: string;
  scores: LighthouseScores | null;
  error?: string;
}

/** Lighthouse (mobile) of the public page of `link` and of the sign-in page. */
export async function publicPages(appOrigin: string, link: PublicLink, runs: number): Promise<PageScores[]> {
  const pages: PageScores[] = [];
  for (const [label, route] of [
    ['public dashboard', `/s/${link.token}`],
    ['sign-in', '/app/login'],
  ] as const) {
    // One visit first, so the page's first Lighthouse run does not pay the workers' cold start.
    await fetch(appOrigin + route).then((r) => r.arrayBuffer());
    say(`Lighthouse (mobile) on ${label === 'sign-in' ? route : '/s/{token}'}, ${runs} run(s)…`);
    const shown = label === 'sign-in' ? route : '/s/{token}';
    // On a loaded machine Lighthouse can give up (PROTOCOL_TIMEOUT): the page's row says so instead of
    // the whole run's figures being lost.
    try {
      pages.push({ label, route: shown, scores: await lighthouseMedian(appOrigin + route, runs) });
    } catch (err) {
      const error = err instanceof Error ? ((err as { code?: string }).code ?? err.message) : String(err);
      say(`    Lighthouse failed on ${shown}: ${error}`);
      pages.push({ label, route: shown, scores: null, error });
    }
  }
  return pages;
}

const GOALS = { performance: 90, accessibility: 100 } as const;
const mark = (ok: boolean) => (ok ? 'met' : 'missed');

export function publicReport(burst: BurstResult | null, pages: PageScores[] | null, runs: number): string {
  const lines: string[] = [];
  if (burst) {
    const { status, bare } = burst;
    lines.push(
      `**${burst.viewers} concurrent viewers** of one public link (${burst.reports} reports), cold: **${burst.executions} executions caused** (goal: one per report, ${burst.reports}).`,
      '',
      '| route | polls | p50 (ms) | p99 (ms) | non-2xx | errors |',
      '|---|---:|---:|---:|---:|---:|',
      `| \`POST /public/links/{token}/status\` | ${status.requests.total} | ${status.latency.p50} | ${status.latency.p99} | ${status.non2xx} | ${status.errors + status.timeouts} |`,
      `| \`GET /bench/bare\`, same connections | ${bare.requests.total} | ${bare.latency.p50} | ${bare.latency.p99} | ${bare.non2xx} | ${bare.errors + bare.timeouts} |`,
      '',
      `Status p99 − bare p99: ${status.latency.p99 - bare.latency.p99} ms (goal ≤ 50 ms: ${mark(status.latency.p99 - bare.latency.p99 <= 50)}); executions ${mark(burst.executions === burst.reports)}.`,
      '',
    );
  }
  if (pages?.length) {
    lines.push(
      `Lighthouse 12, mobile, median of ${runs} run(s):`,
      '',
      '| page | performance | accessibility | FCP (ms) | LCP (ms) | TBT (ms) | transferred (KB) | failed audits |',
      '|---|---:|---:|---:|---:|---:|---:|---|',
      ...pages.map((p) =>
        p.scores
          ? `| ${p.label} \`${p.route}\` | ${p.scores.performance} | ${p.scores.accessibility} | ${p.scores.fcpMs} | ${p.scores.lcpMs} | ${p.scores.tbtMs} | ${p.scores.transferKb} | ${p.scores.failedAudits.join(', ') || '—'} |`
          : `| ${p.label} \`${p.route}\` | — | — | — | — | — | — | Lighthouse failed: ${p.error} |`,
      ),
      '',
      `Goals: public page performance ≥ ${GOALS.performance} (${pages[0]?.scores ? mark(pages[0].scores.performance >= GOALS.performance) : 'not measured'}), accessibility ${GOALS.accessibility} on both (${pages.every((p) => p.scores) ? mark(pages.every((p) => p.scores!.accessibility >= GOALS.accessibility)) : 'not measured'}).`,
    );
  }
  return lines.join('\n');
}
