/**
 * `npm run bench:public-page`: only the Lighthouse part of `npm run bench`'s public paths, against a
 * stack that is already running (with the web app), and with what is behind the performance score.
 *
 *   npm run bench:public-page -- --stack .cairn/dev.json [--runs 3] [--token T] [--login] [--json-dir DIR]
 *
 * Makes a sharing link to the sample overview (6 tiles; or uses `--token`), visits it once (the workers'
 * cold start and the first queries), then runs Lighthouse 12 mobile `--runs` times and prints, per run,
 * the scores and metrics, the main thread's long tasks (start, duration, script) and the script time per
 * file (Lighthouse's bootup-time), and why the back/forward cache refused the page. `--login` measures
 * `/app/login` too. `--json-dir` keeps each run's full Lighthouse report. Writes nothing to bench/README.md:
 * the figures to record come from `npm run bench` on an idle machine.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage, fail, say } from '../scripts/lib/log.ts';
import type { StackFile } from '../scripts/lib/stack.ts';
import { machineLine } from './lib.ts';
import { lighthouseRun, median, scoresOf, type LighthouseScores } from './lighthouse.ts';
import { makePublicLink } from './public.ts';

type Lhr = Parameters<typeof scoresOf>[0];
interface Item {
  [key: string]: unknown;
}

const itemsOf = (lhr: Lhr, id: string): Item[] => ((lhr.audits[id]?.details as { items?: Item[] } | undefined)?.items ?? []) as Item[];
const short = (url: unknown) => String(url ?? '').replace(/^https?:\/\/[^/]+/, '') || '(page)';

/** What a run's report says about the main thread: long tasks, script time per file, bf-cache refusals. */
function details(lhr: Lhr): string[] {
  const lines: string[] = [];
  const tasks = itemsOf(lhr, 'long-tasks');
  lines.push(`  long tasks (${tasks.length}):`);
  for (const t of tasks) lines.push(`    at ${Math.round(Number(t.startTime))} ms, ${Math.round(Number(t.duration))} ms  ${short(t.url)}`);
  lines.push('  script time per file (bootup-time: total / scripting / parse+compile, ms):');
  for (const b of itemsOf(lhr, 'bootup-time')) {
    lines.push(`    ${Math.round(Number(b.total))} / ${Math.round(Number(b.scripting))} / ${Math.round(Number(b.scriptParseCompile))}  ${short(b.url)}`);
  }
  const work = itemsOf(lhr, 'mainthread-work-breakdown').map((w) => `${w.groupLabel ?? w.group} ${Math.round(Number(w.duration))}`);
  lines.push(`  main thread by kind (ms): ${work.join(', ')}`);
  const bf = itemsOf(lhr, 'bf-cache').map((b) => String(b.reason ?? JSON.stringify(b)));
  if (bf.length) lines.push(`  bf-cache refused: ${bf.join('; ')}`);
  return lines;
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { frame?: string } };
}

/**
 * The page's main-thread tasks by their thread (CPU) time rather than their wall time: on a shared,
 * loaded machine a task's wall time includes the waits for a core, its CPU time hardly does. Lighthouse
 * simulates a 4× slower phone from the tasks it observed, so `blocking` is Σ max(0, 4 × CPU ms − 50)
 * over the tasks after the first contentful paint: an estimate of the blocking time on an idle machine.
 */
function cpuTasks(trace: { traceEvents: TraceEvent[] }): { cpuMs: number; blockingMs: number; over50: number } {
  const events = trace.traceEvents;
  const fcp = events.find((e) => e.name === 'firstContentfulPaint');
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === fcp?.pid);
  if (!fcp || !main) return { cpuMs: 0, blockingMs: 0, over50: 0 };
  let cpuMs = 0;
  let blockingMs = 0;
  let over50 = 0;
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'RunTask' || e.pid !== main.pid || e.tid !== main.tid) continue;
    const ms = (e.tdur ?? e.dur ?? 0) / 1000;
    cpuMs += ms;
    if (e.ts < fcp.ts) continue;
    const slow = ms * 4;
    if (slow > 50) {
      blockingMs += slow - 50;
      over50++;
    }
  }
  return { cpuMs: Math.round(cpuMs), blockingMs: Math.round(blockingMs), over50 };
}

const row = (s: LighthouseScores) =>
  `performance ${s.performance}, accessibility ${s.accessibility}, FCP ${s.fcpMs} ms, LCP ${s.lcpMs} ms, TBT ${s.tbtMs} ms, ${s.transferKb} KB${
    s.failedAudits.length ? `, failed: ${s.failedAudits.join(', ')}` : ''
  }`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      stack: { type: 'string' },
      runs: { type: 'string', default: '3' },
      token: { type: 'string' },
      login: { type: 'boolean', default: false },
      'json-dir': { type: 'string' },
    },
    strict: true,
  });
  if (!values.stack) {
    fail('--stack PATH (the dev.json of a running stack with the web app) is required');
    return 2;
  }
  const info = JSON.parse(readFileSync(values.stack, 'utf8')) as StackFile;
  if (!info.app) {
    fail(`${values.stack} describes a stack without the web app`);
    return 2;
  }
  const runs = Math.max(1, Math.round(Number(values.runs) || 1));
  const origin = new URL(info.app).origin;
  let token = values.token;
  if (!token) {
    const api = info.regions.eu.api;
    const res = await fetch(`${api}/dashboards`, { headers: { authorization: `Api ${info.api_key}` } });
    const listed = (await res.json()) as { data?: { id: string; attributes?: { name?: string } }[] };
    const overview = listed.data?.find((d) => /overview/i.test(d.attributes?.name ?? ''))?.id ?? listed.data?.[0]?.id;
    if (!overview) throw new Error(`GET /dashboards answered ${res.status} without a dashboard`);
    token = (await makePublicLink(api, info.api_key, overview)).token;
    say(`sharing link /s/${token}`);
  }
  const pages: [string, string][] = [['public dashboard', `/s/${token}`]];
  if (values.login) pages.push(['sign-in', '/app/login']);
  if (values['json-dir']) mkdirSync(values['json-dir'], { recursive: true });
  for (const [label, route] of pages) {
    await fetch(origin + route).then((r) => r.arrayBuffer());
    const all: LighthouseScores[] = [];
    const cpuEstimates: number[] = [];
    for (let i = 0; i < runs; i++) {
      try {
        const run = await lighthouseRun(origin + route);
        const lhr = run.lhr;
        const s = scoresOf(lhr);
        all.push(s);
        const cpu = cpuTasks(run.artifacts.Trace as unknown as { traceEvents: TraceEvent[] });
        cpuEstimates.push(cpu.blockingMs);
        console.log(`${label} run ${i + 1}: ${row(s)}`);
        console.log(
          `  main thread CPU ${cpu.cpuMs} ms; by CPU time ×4, ${cpu.over50} tasks over 50 ms after FCP, blocking ${cpu.blockingMs} ms (an idle machine's TBT, roughly)`,
        );
        for (const line of details(lhr)) console.log(line);
        if (values['json-dir']) writeFileSync(join(values['json-dir'], `${label.replace(/\W+/g, '-')}-${i + 1}.json`), JSON.stringify(lhr));
      } catch (err) {
        console.log(`${label} run ${i + 1}: Lighthouse failed: ${errorMessage(err)}`);
      }
    }
    if (all.length) {
      const m = (k: keyof Omit<LighthouseScores, 'failedAudits'>) => median(all.map((s) => s[k]));
      console.log(
        `${label} median of ${all.length}: performance ${m('performance')}, accessibility ${m('accessibility')}, FCP ${m('fcpMs')} ms, LCP ${m('lcpMs')} ms, TBT ${m('tbtMs')} ms; blocking by CPU time ${median(cpuEstimates)} ms`,
      );
    }
  }
  console.log(machineLine({ load: true }));
  return 0;
}

process.exitCode = await main().catch((err: unknown) => {
  fail(errorMessage(err));
  return 1;
});
