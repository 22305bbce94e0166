import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { TestProject } from 'vitest/node';

/**
 * Peers that accept a connection but never speak a database protocol, for the connection-test bound
 * (test/datasource-targets.test.ts): tests inside workerd cannot listen, so vitest's global setup (in
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
  const listen = (server: Server | HttpServer) => new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
  project.provide('silentPort', await listen(silent));
  project.provide('httpPort', await listen(http));
  return async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([silent, http].map((s) => new Promise((resolve) => s.close(resolve))));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    silentPort: number;
    httpPort: number;
  }
}
