/** Free-port search on 127.0.0.1 (the only interface the dev stack listens on). */
import { createServer } from 'node:net';

/** True when nothing listens on `port` (we could bind it ourselves). */
function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** Ports handed out by this process, so two searches never return the same one before it is bound. */
const reserved = new Set<number>();

/** The first free port at or above `from` (skipping 5432 and anything already handed out). */
export async function findFreePort(from: number, opts: { avoid?: number[]; max?: number } = {}): Promise<number> {
  const avoid = new Set([5432, ...(opts.avoid ?? [])]);
  const max = opts.max ?? 65_000;
  for (let port = from; port <= max; port++) {
    if (avoid.has(port) || reserved.has(port)) continue;
    if (await isPortFree(port)) {
      reserved.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port on 127.0.0.1 between ${from} and ${max}`);
}

/** `count` consecutive free ports, the first at or above `from`. */
export async function findFreeBlock(from: number, count: number): Promise<number> {
  for (let base = from; base + count <= 65_000; base += count) {
    let ok = true;
    for (let p = base; p < base + count; p++) {
      if (p === 5432 || reserved.has(p) || !(await isPortFree(p))) {
        ok = false;
        break;
      }
    }
    if (ok) {
      for (let p = base; p < base + count; p++) reserved.add(p);
      return base;
    }
  }
  throw new Error(`no block of ${count} free ports above ${from}`);
}

/** Throws a readable error listing the ports in `ports` that are taken. */
export async function assertPortsFree(ports: Record<string, number>, hint: string): Promise<void> {
  const busy: string[] = [];
  for (const [name, port] of Object.entries(ports)) {
    if (!(await isPortFree(port))) busy.push(`${port} (${name})`);
  }
  if (busy.length) throw new Error(`port${busy.length > 1 ? 's' : ''} already in use: ${busy.join(', ')}. ${hint}`);
}

/** A random start for free-port searches, so parallel test runs rarely race for the same ports. */
export function randomPortBase(low = 20_000, high = 40_000): number {
  return low + Math.floor(Math.random() * ((high - low) / 10)) * 10;
}
