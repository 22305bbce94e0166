/**
 * Serves one PGlite database on the Postgres wire protocol to many clients (run as its own process:
 * `node --import tsx scripts/lib/pglite-server.ts --db=<dir|memory://> --port=N [--max-connections=N]`).
 *
 * Why not pglite-socket's `pglite-server`: it queues single protocol messages, so two connections' extended
 * queries (Parse/Bind/Execute/Sync) interleave on PGlite's single backend and one client's Bind meets the
 * other's Parse ("bind message supplies 2 parameters, but prepared statement "" requires 3") — which the
 * API workers hit at once, since they run queries in parallel. Here a connection holds the database from
 * its first message until the backend is idle again: after a Sync or a simple Query outside a transaction
 * (inside one, until it ends). A connection's named prepared statements are deallocated when it closes,
 * and an open transaction is rolled back, so one client's leftovers never reach the next.
 *
 * The price: one client round trip at a time. Fine for one developer clicking through the app; under load
 * (many concurrent requests, each opening fresh connections through local Hyperdrive) requests queue up.
 * Use a real PostgreSQL (DATABASE_URL) for benchmarks.
 */
import { createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'memory://' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '5488' },
    'max-connections': { type: 'string', default: '256' },
  },
  strict: true,
});
const port = Number(values.port);
const maxConnections = Number(values['max-connections']);
if (!Number.isInteger(port) || port <= 0 || port === 5432) {
  console.error(`invalid --port ${values.port} (5432 is reserved for a real PostgreSQL)`);
  process.exit(2);
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

console.log(`opening PGlite database ${values.db}`);
const db = await PGlite.create(values.db!);

/** The connection that currently owns the database, and those waiting for it (FIFO). */
let owner: Connection | null = null;
const waiting: { conn: Connection; go: () => void }[] = [];

function acquire(conn: Connection): Promise<void> {
  if (owner === conn) return Promise.resolve();
  if (owner === null) {
    owner = conn;
    return Promise.resolve();
  }
  return new Promise((go) => waiting.push({ conn, go }));
}

function release(conn: Connection): void {
  if (owner !== conn) return;
  owner = null;
  const next = waiting.shift();
  if (next) {
    owner = next.conn;
    next.go();
  }
}

/** An ErrorResponse message (severity FATAL) for refusing a connection. */
function fatal(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`, 'utf8'),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

const connections = new Set<Connection>();
let connectionIds = 0;

class Connection {
  private buffer = Buffer.alloc(0);
  private chain: Promise<void> = Promise.resolve();
  private started = false;
  private closed = false;
  private readonly statements = new Set<string>();
  private lastType = '';
  private lastAt = 0;
  readonly id = ++connectionIds;

  describe(): string {
    return `#${this.id} (last message ${JSON.stringify(this.lastType)} ${Date.now() - this.lastAt} ms ago, closed ${this.closed})`;
  }

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (data) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      this.drain();
    });
    socket.on('close', () => void this.finish());
    socket.on('error', () => void this.finish());
  }

  /** Splits the buffer into complete messages and queues them in order. */
  private drain(): void {
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const len = this.buffer.readInt32BE(0);
        if (this.buffer.length < len) return;
        const msg = this.buffer.subarray(0, len);
        this.buffer = this.buffer.subarray(len);
        const code = msg.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.socket.write('N');
          continue;
        }
        if (code === CANCEL_REQUEST) {
          this.socket.end();
          return;
        }
        if (code !== PROTOCOL_3) {
          this.socket.end(fatal('08P01', `unsupported protocol ${code}`));
          return;
        }
        this.started = true;
        this.enqueue(Buffer.from(msg), 'startup');
        continue;
      }
      if (this.buffer.length < 5) return;
      const len = this.buffer.readInt32BE(1) + 1;
      if (this.buffer.length < len) return;
      const msg = Buffer.from(this.buffer.subarray(0, len));
      this.buffer = this.buffer.subarray(len);
      this.enqueue(msg, String.fromCharCode(msg[0]!));
    }
  }

  private enqueue(msg: Buffer, type: string): void {
    this.chain = this.chain.then(() => this.handle(msg, type)).catch((err) => {
      console.error('connection error:', (err as Error).message);
      this.socket.destroy();
    });
  }

  private async handle(msg: Buffer, type: string): Promise<void> {
    if (this.closed) return;
    if (type === 'X') {
      this.socket.end();
      return; // `close` runs finish()
    }
    await acquire(this);
    if (this.closed) {
      await this.cleanUp();
      return;
    }
    this.lastType = type;
    this.lastAt = Date.now();
    if (type === 'P') {
      const end = msg.indexOf(0, 5);
      const name = msg.subarray(5, end).toString('utf8');
      if (name) this.statements.add(name);
    } else if (type === 'C' && msg[5] === 'S'.charCodeAt(0)) {
      this.statements.delete(msg.subarray(6, msg.indexOf(0, 6)).toString('utf8'));
    }
    await db.runExclusive(() =>
      db.execProtocolRawStream(new Uint8Array(msg), {
        onRawData: (data) => {
          if (!this.closed && this.socket.writable) this.socket.write(Buffer.from(data));
        },
      }),
    );
    // The backend is idle again after a Sync, a simple Query or the start-up, unless a transaction is open.
    if ((type === 'S' || type === 'Q' || type === 'startup') && !db.isInTransaction()) release(this);
  }

  /** Runs once: roll back, forget prepared statements, hand the database on. */
  private async finish(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    connections.delete(this);
    // A message still queued gets the database in turn, sees `closed` and cleans up there.
    await this.chain.catch(() => undefined);
    if (owner === this || this.statements.size > 0) {
      await acquire(this);
      await this.cleanUp();
    }
  }

  private async cleanUp(): Promise<void> {
    try {
      if (db.isInTransaction()) await db.exec('ROLLBACK');
      for (const name of this.statements) await db.exec(`DEALLOCATE "${name.replace(/"/g, '""')}"`).catch(() => undefined);
      this.statements.clear();
    } catch (err) {
      console.error('cleanup after a closed connection failed:', (err as Error).message);
    } finally {
      release(this);
    }
  }
}

const server = createServer((socket) => {
  socket.on('error', () => undefined); // a client that resets its socket is not our crash
  if (connections.size >= maxConnections) {
    socket.end(fatal('53300', `too many connections (max ${maxConnections}); raise --max-connections`));
    return;
  }
  connections.add(new Connection(socket));
});
server.on('error', (err) => {
  console.error(`cannot listen on ${values.host}:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, values.host, () => console.log(`listening on ${values.host}:${port}`));

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.close();
  for (const c of connections) c.socket.destroy();
  await db.close().catch((err) => console.error('closing PGlite failed:', (err as Error).message));
  console.log('PGlite closed');
  process.exit(0);
}
// `kill -USR2 <pid>` prints who holds the database and who waits (for diagnosing a stuck client).
process.on('SIGUSR2', () => {
  console.log(
    `connections ${connections.size}; owner ${owner ? owner.describe() : 'none'}; waiting ${waiting.length}; in transaction ${db.isInTransaction()}`,
  );
});
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
