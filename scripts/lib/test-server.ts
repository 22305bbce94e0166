/**
 * Starts a throwaway server process for a test harness (sshd-server.ts, clickhouse-server.ts): spawned in
 * its own process group, its output kept (the last 100 lines, for a failure's explanation), polled with
 * `ready` until it answers, and stopped with its group (SIGTERM, then SIGKILL after `graceMs`) and its
 * temporary directory removed. A process that exits or does not answer within `timeoutMs` is stopped
 * and the start fails with its last lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface TestServerProcess {
  /** The server's own log lines (for a failure's explanation). */
  tail: string[];
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** For the failure message: `sshd did not start on 127.0.0.1:PORT`. */
  name: string;
  binary: string;
  args: string[];
  /** The temporary directory of its files, removed when it stops. */
  dir: string;
  /** Whether it answers yet (polled every `everyMs`). */
  ready: () => Promise<boolean>;
  timeoutMs: number;
  everyMs?: number;
  /** How long it may take to end after SIGTERM before SIGKILL. */
  graceMs?: number;
}

export async function startTestServer(o: TestServerOptions): Promise<TestServerProcess> {
  const tail: string[] = [];
  const proc: ChildProcess = spawn(o.binary, o.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) tail.push(line);
    if (tail.length > 100) tail.splice(0, tail.length - 100);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  let exited = false;
  proc.on('exit', () => void (exited = true));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid!, sig);
    } catch {
      /* gone */
    }
  };
  const stop = async () => {
    if (!exited && proc.pid) {
      signal('SIGTERM');
      const deadline = Date.now() + (o.graceMs ?? 10_000);
      while (!exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (!exited) signal('SIGKILL');
    }
    rmSync(o.dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + o.timeoutMs;
  while (!(await o.ready().catch(() => false))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`${o.name} did not start:\n  ${tail.slice(-15).join('\n  ')}`);
    }
    await new Promise((r) => setTimeout(r, o.everyMs ?? 100));
  }
  return { tail, stop };
}
