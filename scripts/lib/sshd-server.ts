/**
 * A throwaway OpenSSH server for the SSH tunnel tests (worker-api/vitest.sshd.ts): Debian's
 * `openssh-server` binary, run in the foreground (-D) with a config written here: loopback only, a
 * fresh ed25519 host key, public keys only, TCP forwarding on, StrictModes off (the files live in a
 * temporary directory), and an authorized_keys file the tests add lines to (`authorize`). It needs
 * root (sshd switches to the logging-in user) and /run/sshd, made here when missing. SSHD names
 * another binary.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './ports.ts';
import { startTestServer } from './test-server.ts';

export const SSHD_BINARY = process.env.SSHD ?? '/usr/sbin/sshd';

export interface SshdServer {
  port: number;
  /** The user the tests log in as (the user running the tests: root on CI). */
  user: string;
  /** Adds one line to authorized_keys (sshd reads the file at each login). */
  authorize(line: string): void;
  /** The server's own log lines (for a failure's explanation). */
  tail: string[];
  stop(): Promise<void>;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('SSH-'));
    });
    s.once('error', () => resolve(false));
  });
}

export async function startSshd(opts: { portFrom?: number; timeoutMs?: number } = {}): Promise<SshdServer> {
  if (!existsSync(SSHD_BINARY)) {
    throw new Error(
      `${SSHD_BINARY} is missing: install Debian's openssh-server (apt-get install openssh-server), or set CAIRN_SKIP_SSHD=1 to skip these tests`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'cairn-sshd-'));
  // sshd's privilege separation directory (the package's service makes it; we do not run the service).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await findFreePort(opts.portFrom ?? 20_000 + Math.floor(Math.random() * 20_000));
  const hostKey = join(dir, 'host_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, '', { mode: 0o600 });
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'AllowTcpForwarding yes',
      'UsePAM no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  const server = await startTestServer({
    name: `sshd on 127.0.0.1:${port}`,
    binary: SSHD_BINARY,
    args: ['-D', '-e', '-f', config, '-p', String(port)],
    dir,
    ready: () => answers(port),
    timeoutMs: opts.timeoutMs ?? 10_000,
    graceMs: 5_000,
  });
  return { port, user: userInfo().username, authorize: (line) => appendFileSync(authorized, `${line.trim()}\n`), tail: server.tail, stop: server.stop };
}
