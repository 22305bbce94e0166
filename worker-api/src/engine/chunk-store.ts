import postgres from 'postgres';
import { ownSocket, type PgSocket } from '@cairn/core/pg/socket';
import { runWireStatement } from '@cairn/core/pg/wire';

const INSERT = 'insert into result_chunks (execution_id, seq, rows, data) values ($1, $2, $3, $4)';
const CONNECT_TIMEOUT_MS = 10_000;
const NO_ROWS = { columns: () => {}, row: () => {}, batch: () => {} };

/** One connection of the store: a postgres.js client of one connection, on Cairn's own socket in workerd. */
interface Lane {
  sql: postgres.Sql;
  /** The connection's open socket (connecting first if need be); null outside workerd. */
  socket(): Promise<PgSocket | null>;
}

/**
 * Writes result chunks into Cairn's database (ARCHITECTURE.md D27). Inside workerd each insert goes
 * straight onto the wire with the chunk as a binary parameter: its bytes are copied once into the
 * message, with no text decoding, no re-encoding by the driver and no conversion on the server.
 * Outside workerd it goes through postgres.js as text.
 * Up to `lanes` inserts run at once, each on its own connection; further writes wait their turn.
 */
export class ChunkStore {
  private readonly idle: Lane[] = [];
  private readonly waiting: ((lane: Lane) => void)[] = [];
  private opened = 0;

  constructor(private readonly url: string, private readonly lanes = 3) {}

  async write(executionId: string, seq: number, rows: number, data: Uint8Array): Promise<void> {
    const lane = await this.acquire();
    try {
      await this.insert(lane, executionId, seq, rows, data);
    } finally {
      this.release(lane);
    }
  }

  private async insert(lane: Lane, executionId: string, seq: number, rows: number, data: Uint8Array): Promise<void> {
    const socket = await lane.socket();
    if (socket) {
      await runWireStatement(socket, INSERT, [executionId, seq, rows, data], NO_ROWS);
      return;
    }
    await lane.sql`insert into result_chunks (execution_id, seq, rows, data)
      values (${executionId}, ${seq}, ${rows}, convert_to(${utf8.decode(data)}, 'UTF8'))`;
  }

  private acquire(): Promise<Lane> {
    const lane = this.idle.pop();
    if (lane) return Promise.resolve(lane);
    if (this.opened < this.lanes) {
      this.opened++;
      const own = ownSocket(this.url, CONNECT_TIMEOUT_MS);
      const sql = postgres(this.url, {
        max: 1, fetch_types: false, idle_timeout: 60, onnotice: () => {},
        connection: { application_name: 'cairn-chunks' }, ...own.options,
      });
      return Promise.resolve({ sql, socket: () => own.ready(() => sql`select 1`) });
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(lane: Lane): void {
    const next = this.waiting.shift();
    if (next) next(lane);
    else this.idle.push(lane);
  }
}

const utf8 = new TextDecoder();
