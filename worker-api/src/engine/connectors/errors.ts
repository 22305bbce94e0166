import { ApiError } from '@cairn/core';
import type { ExecutionStatus } from '@cairn/db';

/**
 * Why a run failed:
 * - query_error: the database refused the SQL (its own message; the user's mistake, a 422);
 * - timed_out: the statement timeout was reached;
 * - cancelled: someone cancelled the statement;
 * - connection_error: the database could not be reached or refused the login (names the host);
 * - refused: Cairn refused to connect there (its own metadata database, or a private network where the
 *   operator blocks those: connectors/target-guard.ts); the datasource's settings are the problem.
 */
export type FailureKind = 'query_error' | 'timed_out' | 'cancelled' | 'connection_error' | 'refused';

export class ConnectorError extends ApiError {
  constructor(
    readonly kind: FailureKind,
    detail: string,
    meta?: Record<string, unknown>,
  ) {
    super(kind === 'connection_error' || kind === 'refused' ? 'invalid_state' : 'query_error', detail, {
      ...(kind === 'query_error' ? { source: { pointer: '/data/attributes/sql_query' } } : {}),
      meta: { failure: kind, ...meta },
    });
    this.name = 'ConnectorError';
  }

  /** The execution status this failure leaves behind (a connection failure or refusal is the query's error). */
  get executionStatus(): ExecutionStatus {
    return this.kind === 'connection_error' || this.kind === 'refused' ? 'query_error' : this.kind;
  }
}

/** The execution status for anything a run may throw. */
export function executionStatusOf(err: unknown): ExecutionStatus {
  if (err instanceof ConnectorError) return err.executionStatus;
  if (err instanceof ApiError && err.code === 'query_error') return 'query_error';
  return 'internal_error';
}

export const timedOut = (ms: number) =>
  new ConnectorError('timed_out', `The query was stopped: it ran longer than the statement timeout of ${formatSeconds(ms)}.`);

export const cancelled = () => new ConnectorError('cancelled', 'The query was cancelled.');

/**
 * Longest wait for a new connection's first answer: connect, TLS, login and the first statement. A
 * peer that accepts the connection but never speaks the protocol (an HTTP port, say) held a connection
 * test for minutes before this bound.
 */
export const FIRST_ANSWER_MS = 15_000;

/**
 * `work`, or a connection_error when it has not settled within `ms` (then `giveUp` closes the
 * connection, and whatever `work` does later is ignored).
 */
export async function answerWithin<T>(work: Promise<T>, ms: number, label: string, giveUp: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      giveUp();
      reject(
        new ConnectorError(
          'connection_error',
          `Could not connect to ${label}: no answer within ${formatSeconds(ms)}. Is this the database's port, and does it speak the database's protocol?`,
          { code: 'NO_ANSWER' },
        ),
      );
    }, ms);
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, late]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * What the Workers runtime's socket says when nothing accepts the connection, in plain words: the
 * runtime's own text ("proxy request failed, cannot connect to the specified address") names a proxy
 * that the analyst never configured.
 */
const RUNTIME_CONNECT_FAILURE = /proxy request failed[^.]*|cannot connect to the specified address/i;
export const NOTHING_ANSWERS =
  'nothing accepts connections at this address and port (check the host, the port and that the database server is running and reachable from Cairn)';

/** The message of anything thrown, without a trailing period doubling up. */
export function messageOf(err: unknown): string {
  if (err instanceof Error && err.message) return RUNTIME_CONNECT_FAILURE.test(err.message) ? NOTHING_ANSWERS : err.message;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : String(err);
}
