/// <reference path="../../ssh2.d.ts" />
import net from 'node:net';
import type { ClientChannel } from 'ssh2';
import { ConnectorError, messageOf } from './errors.ts';

/**
 * SSH tunnels (connection_mode ssh_tunnel, ARCHITECTURE D51): ssh2 (pure JavaScript, patched to run in
 * workerd: patches/ssh2+1.17.0.patch) over a TCP socket from workerd's node:net, logged in as the
 * datasource's ssh_tunnel_user with the organization's key, then one `direct-tcpip` channel to the
 * database's host:port as the SSH server sees it. The channel is the database connection's socket:
 * one SSH connection per database connection, closed with it.
 */
export interface TunnelSettings {
  /** The SSH server as the datasource names it (messages). */
  host: string;
  /** Where to connect when it is not `host` (the address checked under BLOCK_PRIVATE_NETWORKS). */
  address?: string;
  port: number;
  user: string;
  /** The organization's private key (OpenSSH block), read when a connection is made. */
  privateKey: () => Promise<string>;
}

/** A tunnelled connection, shaped for postgres.js's `socket` option and mysql2's `stream`. */
export type TunnelStream = ClientChannel & { readyState: 'open' | 'closed'; setNoDelay?: () => void; setKeepAlive?: () => void };

interface NetSocket {
  on(event: string, fn: (...args: any[]) => void): unknown;
  destroy(): void;
}

/** Longest wait for the SSH server's greeting, key exchange and login (within the drivers' FIRST_ANSWER_MS). */
const TUNNEL_READY_MS = 7_000;

/** Opens an SSH connection and a channel through it to `dest` (host and port as the SSH server sees them). */
export async function openTunnel(t: TunnelSettings, dest: { host: string; port: number }, timeoutMs = TUNNEL_READY_MS): Promise<TunnelStream> {
  const label = `the SSH server ${t.host}:${t.port}`;
  const privateKey = await t.privateKey();
  // ssh2 (large, CommonJS) is loaded on first use, as mysql2 is (connectors/mysql.ts).
  const { Client } = await import('ssh2');
  const sock = net.connect(t.port, t.address ?? t.host) as unknown as NetSocket;
  const client = new Client();
  let settled = false;
  return new Promise<TunnelStream>((resolve, reject) => {
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.end();
      sock.destroy();
      reject(err instanceof ConnectorError ? err : tunnelError(label, t, dest, err));
    };
    const timer = setTimeout(
      () => fail(new ConnectorError('connection_error', `Could not open the SSH tunnel: ${label} did not complete the login within ${timeoutMs / 1000} s.`)),
      timeoutMs,
    );
    sock.on('error', fail);
    client.on('error', fail);
    client.on('close', () => fail(new ConnectorError('connection_error', `Could not open the SSH tunnel: ${label} closed the connection.`)));
    client.on('ready', () => {
      client.forwardOut('127.0.0.1', 0, dest.host, dest.port, (err, channel) => {
        if (err) return fail(err);
        if (settled) {
          channel.destroy();
          return;
        }
        settled = true;
        clearTimeout(timer);
        resolve(
          asSocket(channel, () => {
            client.end();
            sock.destroy();
          }),
        );
      });
    });
    // The SSH server's host key is not pinned (D51): the key exchange still encrypts, and the login
    // proves nothing to a server that is not the customer's.
    client.connect({ sock, username: t.user, privateKey, readyTimeout: timeoutMs, keepaliveInterval: 15_000 });
  });
}

/** The channel with what the database drivers expect of a socket; closing it closes the SSH connection. */
function asSocket(channel: ClientChannel, closeSsh: () => void): TunnelStream {
  const s = channel as TunnelStream;
  s.readyState = 'open';
  s.setNoDelay = () => {};
  s.setKeepAlive = () => {};
  const closed = () => {
    if (s.readyState === 'closed') return;
    s.readyState = 'closed';
    closeSsh();
  };
  s.on('close', closed);
  s.on('error', () => {});
  const destroy = s.destroy.bind(s);
  s.destroy = (err?: Error) => {
    destroy(err);
    closed();
    return s;
  };
  return s;
}

/** A clear message for each way a tunnel fails. */
function tunnelError(label: string, t: TunnelSettings, dest: { host: string; port: number }, err: unknown): ConnectorError {
  const e = err as { level?: string; code?: string; reason?: number; message?: string };
  const msg = messageOf(err);
  if (e.level === 'client-authentication') {
    return new ConnectorError(
      'connection_error',
      `Could not open the SSH tunnel: ${label} refused the login as "${t.user}" with this organization's SSH key. ` +
        "Add the organization's public key (GET /organization ssh_public_key) to that user's ~/.ssh/authorized_keys.",
    );
  }
  if (typeof e.reason === 'number' || /channel open/i.test(msg)) {
    return new ConnectorError(
      'connection_error',
      `The SSH tunnel through ${label} is open, but ${dest.host}:${dest.port} could not be reached from there: ${msg}`,
    );
  }
  if (e.level === 'client-timeout') {
    return new ConnectorError('connection_error', `Could not open the SSH tunnel: ${label} did not answer in time.`);
  }
  if (/ENOTFOUND|EAI_|not resolve|getaddrinfo|DNS/i.test(`${e.code ?? ''} ${msg}`)) {
    return new ConnectorError('connection_error', `Could not open the SSH tunnel: the host name ${t.host} could not be resolved (${msg}).`);
  }
  return new ConnectorError('connection_error', `Could not open the SSH tunnel to ${label}: ${msg}`);
}
