import { env, SELF } from 'cloudflare:test';
import { createDb, executions, organizations, resultChunks, results } from '@cairn/db';
import { makeDataKey, newId, randomString, signDataToken, signProcessToken, type ResultField } from '@cairn/core';
import { ResultObjectWriter, resultObjectKey, type ResultBucket, type StoredObject } from '@cairn/core/results/object';

export const { db } = createDb(env.HYPERDRIVE.connectionString, { max: 2 });
export const enc = new TextEncoder();
/** Note: strips a leading byte order mark, as TextDecoder does by default. */
export const dec = new TextDecoder();

export async function makeOrg(label: string): Promise<string> {
  const id = newId('organization');
  await db.insert(organizations).values({ id, name: `${label} ${randomString(6)}` });
  return id;
}

export const field = (idx: number, name: string, data_type: ResultField['data_type']): ResultField => ({
  idx,
  name,
  data_type,
  unique_count: null,
  human_name: name,
  min_value: null,
  max_value: null,
  group_by: false,
});

/**
 * Stores a result as the engine does: an execution, its results row and the rows in JSON chunks, in
 * result_chunks or (`object`) as one object of the RESULTS bucket with its chunk index (D55).
 */
export async function storeResult(
  org: string,
  fields: ResultField[],
  chunks: unknown[][][],
  opts: { expired?: boolean; raw?: Uint8Array[]; object?: boolean } = {},
) {
  const exe = newId('execution');
  const key = makeDataKey(
    'eu',
    org,
    exe,
    randomString(16)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'a'),
  );
  const expires = new Date(Date.now() + (opts.expired ? -60_000 : 3_600_000));
  await db.insert(executions).values({
    id: exe,
    organization_id: org,
    execution_type: 'sql_query',
    execution_status: 'success',
    sql_query: 'select 1',
    expires_at: expires,
  });
  const data = opts.raw ?? chunks.map((rows) => enc.encode(rows.map((r) => JSON.stringify(r)).join(',')));
  const rowCount = chunks.reduce((n, c) => n + c.length, 0);
  let stored: StoredObject | null = null;
  if (opts.object) {
    const writer = new ResultObjectWriter(env.RESULTS as unknown as ResultBucket, resultObjectKey(exe));
    for (let i = 0; i < data.length; i++) await writer.append(chunks[i]?.length ?? 0, data[i]!);
    stored = await writer.finish();
  }
  await db.insert(results).values({
    execution_id: exe,
    organization_id: org,
    data_key: key,
    row_count: rowCount,
    size_in_bytes: data.reduce((n, d) => n + d.length, 0),
    time_zone: 'UTC',
    data_timestamp: new Date('2026-01-02T03:04:05Z'),
    expires_at: expires,
    fields,
    stored_object: stored,
  });
  if (stored) return { exe, key, stored };
  for (let i = 0; i < data.length; i += 200) {
    await db.insert(resultChunks).values(data.slice(i, i + 200).map((d, k) => ({ execution_id: exe, seq: i + k, rows: chunks[i + k]?.length ?? 0, data: d })));
  }
  return { exe, key };
}

export const dataToken = (over: Partial<Parameters<typeof signDataToken>[0]> & { org: string; key: string }, secret = env.DATA_TOKEN_SECRET) =>
  signDataToken({ kind: 'data', region: 'eu', ...over }, secret);

export const processToken = (over: Partial<Parameters<typeof signProcessToken>[0]> & { org: string }, secret = env.DATA_TOKEN_SECRET) =>
  signProcessToken({ kind: 'process', region: 'eu', items: [], format: 'json', ...over }, secret);

export const get = (path: string, auth?: string) => SELF.fetch(`https://data.test${path}`, { headers: auth ? { authorization: auth } : {} });

export const post = (path: string, body: string | FormData | URLSearchParams, contentType?: string) =>
  SELF.fetch(`https://data.test${path}`, { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });

export async function errorOf(res: Response) {
  const body = (await res.json()) as { errors: { code: string; detail: string; status: string; source?: unknown }[] };
  return body.errors[0]!;
}

/** A CSV response's lines (byte order mark and the final line break removed). */
export async function collectRows(res: Response): Promise<string[]> {
  const text = await res.text();
  const lines = text.replace(/^\ufeff/, '').split('\r\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
