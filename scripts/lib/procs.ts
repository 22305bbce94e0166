/**
 * Child processes of the dev stack: each runs in its own process group (so stopping it also stops what it
 * spawned, e.g. workerd under wrangler), its output lines are prefixed with its name, the last lines are
 * kept to explain a failure, and an unexpected exit is reported once to whoever supervises the stack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { linePrefix, paint, stripAnsi, type Color } from './log.ts';

const PREFIX_COLORS: Color[] = ['cyan', 'magenta', 'blue', 'green', 'yellow', 'gray'];
const TAIL_LINES = 200;

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Print nothing of this child's output (it is still kept for error messages). */
  quiet?: boolean;
  /** Lines for which this returns false are neither printed nor kept (noise filters). */
  keepLine?: (line: string) => boolean;
  /** Stopped after every other child (e.g. the database, so the workers go first). */
  stopLast?: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class Child {
  readonly tail: string[] = [];
  exit: ExitInfo | null = null;
  stopping = false;
  readonly exited: Promise<ExitInfo>;
  /** Set when the process could not be started at all (e.g. ENOENT). */
  spawnError: Error | null = null;

  constructor(
    readonly name: string,
    readonly proc: ChildProcess,
    readonly stopLast: boolean,
  ) {
    this.exited = new Promise((resolve) => {
      proc.once('error', (err) => {
        this.spawnError = err;
        if (this.exit) return;
        this.exit = { code: null, signal: null };
        resolve(this.exit);
      });
      proc.once('exit', (code, signal) => {
        if (this.exit) return;
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** "exited with code 1" / "was killed by SIGKILL", plus the last lines of its output. */
  describeExit(): string {
    let what: string;
    if (this.spawnError) what = `could not be started: ${this.spawnError.message}`;
    else if (!this.exit) what = 'is still running';
    else if (this.exit.signal) what = `was killed by ${this.exit.signal}`;
    else what = `exited with code ${this.exit.code}`;
    if (!this.tail.length) return `${this.name} ${what} (no output).`;
    // The cause is usually an error line early on; a crash then prints pages of stack trace after it.
    const last = this.tail.slice(-10);
    const errors = this.tail
      .slice(0, -10)
      .filter((l) => /error|✘|fatal|failed|cannot|EADDRINUSE/i.test(l) && !/Continuing\.\.\.|\[wrangler.*:info\]/.test(l))
      .slice(0, 8);
    const lines = errors.length ? [...errors, '…', ...last] : last;
    return `${this.name} ${what}. Its output (errors and the last lines):\n    ${lines.join('\n    ')}`;
  }
}

/** True while at least one process of the group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* already gone */
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Supervisor {
  readonly children: Child[] = [];
  private exitListeners: ((child: Child) => void)[] = [];
  private stopped = false;
  private colorIndex = 0;
  private readonly onProcessExit = () => this.killAllNow();

  constructor() {
    // Last resort: whatever happens to this process, its children's groups do not outlive it.
    process.on('exit', this.onProcessExit);
  }

  /** Called once per child that exits while the stack is not being stopped. */
  onUnexpectedExit(listener: (child: Child) => void): void {
    this.exitListeners.push(listener);
  }

  spawn(name: string, command: string, args: string[], opts: SpawnOptions = {}): Child {
    if (this.stopped) throw new Error(`cannot start ${name}: the stack is stopping`);
    const proc = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // own process group: killed as a whole, and Ctrl-C in the terminal reaches us only
    });
    const child = new Child(name, proc, opts.stopLast ?? false);
    this.children.push(child);

    const color = PREFIX_COLORS[this.colorIndex++ % PREFIX_COLORS.length]!;
    const prefix = linePrefix() + paint(color, `[${name}]`);
    const onLine = (line: string, stream: NodeJS.WriteStream) => {
      const plain = stripAnsi(line);
      if (opts.keepLine && !opts.keepLine(plain)) return;
      child.tail.push(plain);
      if (child.tail.length > TAIL_LINES) child.tail.shift();
      if (!opts.quiet && plain.trim() !== '') stream.write(`${prefix} ${line}\n`);
    };
    createInterface({ input: proc.stdout! }).on('line', (l) => onLine(l, process.stdout));
    createInterface({ input: proc.stderr! }).on('line', (l) => onLine(l, process.stderr));

    void child.exited.then(() => {
      if (child.stopping || this.stopped) return;
      for (const listener of this.exitListeners) listener(child);
    });
    return child;
  }

  /** Stops one child: SIGTERM to its group, SIGKILL after `graceMs`. */
  async stopChild(child: Child, graceMs = 5000): Promise<void> {
    child.stopping = true;
    const pgid = child.pid;
    if (pgid === undefined) return;
    if (child.running || groupAlive(pgid)) killGroup(pgid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && (child.running || groupAlive(pgid))) await sleep(100);
    if (child.running || groupAlive(pgid)) {
      killGroup(pgid, 'SIGKILL');
      const hard = Date.now() + 3000;
      while (Date.now() < hard && (child.running || groupAlive(pgid))) await sleep(50);
    }
  }

  /** Stops every child: the ordinary ones together, then those marked `stopLast`. Safe to call twice. */
  async stopAll(graceMs = 5000): Promise<void> {
    this.stopped = true;
    for (const c of this.children) c.stopping = true;
    const first = this.children.filter((c) => !c.stopLast);
    const last = this.children.filter((c) => c.stopLast);
    await Promise.all(first.map((c) => this.stopChild(c, graceMs)));
    await Promise.all(last.map((c) => this.stopChild(c, graceMs)));
    process.off('exit', this.onProcessExit);
  }

  /** Synchronous SIGKILL of every group (for the `exit` event and a second Ctrl-C). */
  killAllNow(): void {
    this.stopped = true;
    for (const c of this.children) {
      c.stopping = true;
      if (c.pid !== undefined) killGroup(c.pid, 'SIGKILL');
    }
  }

  /** Process-group ids of the children that still have a live process. */
  liveGroups(): number[] {
    return this.children.map((c) => c.pid).filter((p): p is number => p !== undefined && groupAlive(p));
  }
}
