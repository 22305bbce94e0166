import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startSmtpCatcher } from '../scripts/lib/smtp-catcher.ts';

/**
 * Peers that accept a connection but never speak a database protocol, for the connection-test bound
 * (src/resources/datasources/targets.test.ts): tests inside workerd cannot listen, so vitest's global setup (in
 * Node) opens them on free ports and hands the ports to the tests (`inject('silentPort')`, `inject('httpPort')`).
 * - silent: accepts and never writes a byte;
 * - http: a plain Node HTTP server (the case that held a connection test for more than 300 s).
 */
export default async function setup(project: TestProject) {
  const sockets = new Set<Socket>();
  const silent = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const http = createHttpServer((_req, res) => res.end('hello from an HTTP server\n'));
  http.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (server: Server | HttpServer) =>
    new Promise<number>((resolve) => {
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  project.provide('silentPort', await listen(silent));
  project.provide('httpPort', await listen(http));
  // A real SMTP server for the job queue's sends (src/jobs/queue.test.ts): the test passes its port as
  // SMTP_PORT and reads what arrived through the catcher's HTTP inbox.
  const catcher = await startSmtpCatcher({ smtpPort: 0, httpPort: 0 });
  project.provide('smtpPort', catcher.smtpPort);
  project.provide('mailInbox', `http://127.0.0.1:${catcher.httpPort}`);
  project.provide('samlKeys', samlKeys());
  return async () => {
    await catcher.close();
    for (const s of sockets) s.destroy();
    await Promise.all([silent, http].map((s) => new Promise((resolve) => s.close(resolve))));
  };
}

/** Throwaway identity-provider keys and certificates for src/auth/sso/sso.test.ts (openssl, made per run, never stored). */
function samlKeys() {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-saml-keys-'));
  try {
    const make = (name: string) => {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, `${name}.key`),
          '-out',
          join(dir, `${name}.crt`),
          '-days',
          '2',
          '-subj',
          `/CN=${name}`,
        ],
        { stdio: 'ignore' },
      );
      return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.crt`), 'utf8') };
    };
    return { idp: make('cairn-test-idp'), other: make('cairn-test-other') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    silentPort: number;
    httpPort: number;
    smtpPort: number;
    mailInbox: string;
    samlKeys: { idp: { key: string; cert: string }; other: { key: string; cert: string } };
  }
}
