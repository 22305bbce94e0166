/**
 * Peak resident memory of a set of processes, sampled from /proc (Linux): every process in the given
 * process groups (a supervised child and everything it started — wrangler's Node process and its
 * workerd), plus extra pids (this process). Each pid keeps its own peak.
 */
import { readdirSync, readFileSync } from 'node:fs';

const PAGE = 4096;

export interface ProcPeak {
  pid: number;
  group: string;
  comm: string;
  peakBytes: number;
}

function statOf(pid: number): { comm: string; pgrp: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const fields = s.slice(close + 2).split(' ');
    return { comm, pgrp: Number(fields[2]) };
  } catch {
    return null;
  }
}

function rssOf(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
  } catch {
    return null;
  }
}

export class RssSampler {
  private readonly peaks = new Map<number, ProcPeak>();
  private timer: ReturnType<typeof setInterval> | null = null;

  /** `groups`: process group id → a name for it; `pids`: single processes → a name. */
  constructor(
    private readonly groups: Map<number, string>,
    private readonly pids: Map<number, string> = new Map(),
  ) {}

  sample(): void {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      let group = this.pids.get(pid);
      let comm = '';
      if (group === undefined) {
        const st = statOf(pid);
        if (!st) continue;
        group = this.groups.get(st.pgrp);
        if (group === undefined) continue;
        comm = st.comm;
      } else {
        comm = statOf(pid)?.comm ?? '';
      }
      const rss = rssOf(pid);
      if (rss === null) continue;
      const prev = this.peaks.get(pid);
      if (!prev || rss > prev.peakBytes) this.peaks.set(pid, { pid, group, comm, peakBytes: rss });
    }
  }

  start(everyMs = 100): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): ProcPeak[] {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return [...this.peaks.values()].sort((a, b) => a.group.localeCompare(b.group) || b.peakBytes - a.peakBytes);
  }
}

/** CPU time (user + system, in ms) used so far by every process of one process group with this command name. */
export function groupCpuMs(pgrp: number, comm: string): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const s = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = s.lastIndexOf(')');
      if (s.slice(s.indexOf('(') + 1, close) !== comm) continue;
      const fields = s.slice(close + 2).split(' ');
      if (Number(fields[2]) !== pgrp) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended between readdir and read
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}
