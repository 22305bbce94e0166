/**
 * The launcher's health watch (scripts/lib/health.ts): a supervised process that is alive but stops
 * answering its health route is stopped and started again, as `npm start` does for a wrangler whose
 * workerd died or hangs. A small HTTP server stands in for the worker: once frozen (SIGSTOP, alive but
 * silent) and once with its server gone while the process lives on. Needs no stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { watchHealth } from '../scripts/lib/health.ts';
import { findFreePort } from '../scripts/lib/ports.ts';
import { Supervisor, type Child } from '../scripts/lib/procs.ts';

/** Serves GET /health with its pid; POST /drop closes the server but keeps the process running. */
const SERVER = `
const http = require('node:http');
const srv = http.createServer((req, res) => {
  if (req.url === '/drop') { res.end('dropping'); srv.close(); srv.closeAllConnections(); setInterval(() => {}, 1000); return; }
  res.end(String(process.pid));
});
srv.listen(Number(process.argv[1]), '127.0.0.1', () => console.log('listening'));
`;

const sup = new Supervisor();
afterAll(async () => {
  await sup.stopAll(1000);
});

async function pidAt(url: string): Promise<number | null> {
  try {
    return Number(await (await fetch(url, { signal: AbortSignal.timeout(1000) })).text());
  } catch {
    return null;
  }
}

async function until<T>(check: () => Promise<T | null | undefined | false>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('watchHealth', () => {
  it('restarts a process that stops answering (frozen, or its server gone), and leaves a healthy one alone', async () => {
    const port = await findFreePort(24_100);
    const url = `http://127.0.0.1:${port}/health`;
    const spawn = () => sup.spawn('fake-worker', process.execPath, ['-e', SERVER, String(port)], { quiet: true });
    let exitsNoticed = 0;
    sup.onUnexpectedExit(() => void exitsNoticed++);
    const first: Child = spawn();
    const restarts: string[] = [];
    const watched = { name: 'fake-worker', url, child: first, respawn: spawn };
    // As in `npm start`, the watch begins once the process answers (a slow start on a loaded machine is
    // not a hang).
    const pid1 = await until(() => pidAt(url), 30_000);
    expect(pid1).toBe(first.pid);
    const stop = watchHealth(sup, [watched], {
      intervalMs: 200,
      timeoutMs: 300,
      failures: 3,
      readyTimeoutMs: 10_000,
      stopGraceMs: 500,
      onRestart: (name, why) => restarts.push(`${name}: ${why}`),
    });
    try {
      await new Promise((r) => setTimeout(r, 1200));
      expect(restarts).toEqual([]);

      // Alive but silent: the launcher stops it and starts a new one.
      process.kill(-first.pid!, 'SIGSTOP');
      const pid2 = await until(async () => {
        const p = await pidAt(url);
        return p && p !== pid1 ? p : null;
      }, 15_000);
      expect(restarts).toHaveLength(1);
      expect(restarts[0]).toMatch(/3 health checks of .*\/health failed/);
      expect(first.running).toBe(false);
      expect(watched.child.pid).toBe(pid2);

      // The process lives on but its server is gone (like wrangler after workerd died).
      await fetch(`http://127.0.0.1:${port}/drop`).catch(() => undefined);
      const pid3 = await until(async () => {
        const p = await pidAt(url);
        return p && p !== pid2 ? p : null;
      }, 15_000);
      expect(restarts).toHaveLength(2);
      expect(watched.child.pid).toBe(pid3);
      // Stopping for a restart is not an unexpected exit.
      expect(exitsNoticed).toBe(0);
    } finally {
      stop();
    }
  }, 60_000);
});
