import { createServer } from 'node:http';
import type { TestProject } from 'vitest/node';
import { findFreePort } from '../scripts/lib/ports.ts';
import { startSshd } from '../scripts/lib/sshd-server.ts';

/**
 * Starts sshd for src/engine/connectors/ssh-tunnel.test.ts (workerd can neither spawn processes nor write
 * files): the tests read an organization's public key through the API and hand the authorized_keys
 * line to a small HTTP endpoint here (POST /authorize), which appends it to the server's file.
 */
export default async function setup(project: TestProject) {
  if (process.env.CAIRN_SKIP_SSHD === '1') {
    project.provide('sshd', { port: 0, user: '', authorizePort: 0, closedPort: 0 });
    return;
  }
  const sshd = await startSshd();
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => void (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/authorize' || !/^[\w,-]* ?ssh-ed25519 [A-Za-z0-9+/=]+ \S+$/.test(body.trim())) {
        res.statusCode = 400;
        res.end('expected POST /authorize with one authorized_keys line');
        return;
      }
      sshd.authorize(body);
      res.end('ok');
    });
  });
  const authorizePort = await new Promise<number>((resolve) => {
    http.listen(0, '127.0.0.1', () => resolve((http.address() as { port: number }).port));
  });
  // A loopback port where nothing listens (found free here, never bound).
  const closedPort = await findFreePort(sshd.port + 1, { avoid: [authorizePort] });
  project.provide('sshd', { port: sshd.port, user: sshd.user, authorizePort, closedPort });
  return async () => {
    await new Promise((resolve) => http.close(resolve));
    await sshd.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The OpenSSH server vitest.sshd-setup.ts started (port 0: skipped) and where to authorize a key. */
    sshd: { port: number; user: string; authorizePort: number; closedPort: number };
  }
}
