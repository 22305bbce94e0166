import {
  contentDisposition,
  csvStream,
  fileNamer,
  toReadableStream,
  xlsxStream,
  zipStream,
  DEFAULT_CSV_OPTIONS,
  type CsvOptions,
  type ZipEntry,
} from '@cairn/core/export/index';
import type { DataFormat, ProcessFormat } from '@cairn/core/export/options';
import type { RequestSql } from './db.ts';
import { jsonHead, jsonTail, resultJson, RowsText, type StoredResult } from './results.ts';
import { pageChunks, type Page } from './paging.ts';

export const MEDIA = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
} as const;

/**
 * CSV files bigger than this (as stored JSON) go into the zip uncompressed: deflate costs about a
 * second of CPU per 50 MB, and large downloads should stream at the speed of the data.
 */
const STORE_ABOVE_BYTES = 32 * 1024 * 1024;

function respond(body: AsyncIterable<Uint8Array>, headers: Record<string, string>, onDone: () => void): Response {
  return new Response(toReadableStream(body, { onDone, onError: (err) => console.error('download failed while streaming', err) }), {
    headers: { 'x-content-type-options': 'nosniff', ...headers },
  });
}

/**
 * `GET /data/{key}`: the result as JSON (the default), CSV or XLSX, as the token says; with a page,
 * only its rows (JSON), and the page and total row count as `offset`, `limit` and `row_count`.
 */
export function resultResponse(
  db: RequestSql,
  r: StoredResult,
  opts: { format?: DataFormat; csv?: CsvOptions; name?: string },
  onDone: () => void,
  page: Page | null = null,
): Response {
  if (page) {
    const extra = `"offset":${page.offset},"limit":${page.limit},"row_count":${r.row_count},`;
    return respond(
      resultJson(r, pageChunks(db.sql, db.bucket, r, page), extra),
      { 'content-type': MEDIA.json, 'cache-control': 'private, max-age=300' },
      onDone,
    );
  }
  const chunks = () => db.chunks(r);
  const base = opts.name?.trim() || `data ${r.execution_id}`;
  switch (opts.format ?? 'json') {
    case 'csv':
      return respond(
        csvStream(r.fields, chunks(), opts.csv ?? DEFAULT_CSV_OPTIONS),
        {
          'content-type': MEDIA.csv,
          'content-disposition': contentDisposition(fileNamer('.csv')(base)),
          'cache-control': 'private, no-store',
        },
        onDone,
      );
    case 'xlsx':
      return respond(
        xlsxStream([{ name: base, fields: r.fields, chunks: chunks() }]),
        {
          'content-type': MEDIA.xlsx,
          'content-disposition': contentDisposition(fileNamer('.xlsx')(base)),
          'cache-control': 'private, no-store',
        },
        onDone,
      );
    default: {
      const rows = db.rowsText(r);
      const headers = { 'content-type': MEDIA.json, 'cache-control': 'private, max-age=300' };
      if (rows instanceof RowsText && rows.open && typeof IdentityTransformStream !== 'undefined') return pipedJson(r, rows.open, headers, onDone);
      return respond(resultJson(r, rows), headers, onDone);
    }
  }
}

/**
 * The JSON document of a result stored as one object (D55): the head, then the object's body piped
 * into the response by the runtime itself (an R2 body into an IdentityTransformStream: no JavaScript
 * runs per chunk, where the generator path above costs a pull, a read and a yield for each of the
 * thousands of pieces a 64 MB body arrives in), then the tail (ARCHITECTURE D68).
 */
function pipedJson(r: StoredResult, open: () => Promise<ReadableStream<Uint8Array>>, headers: Record<string, string>, onDone: () => void): Response {
  const { readable, writable } = new IdentityTransformStream();
  const pump = async () => {
    const body = await open();
    let writer = writable.getWriter();
    await writer.write(jsonHead(r));
    writer.releaseLock();
    await body.pipeTo(writable, { preventClose: true });
    writer = writable.getWriter();
    await writer.write(jsonTail(r));
    await writer.close();
  };
  pump()
    .catch(async (err: unknown) => {
      console.error('download failed while streaming', err);
      await writable.abort(err).catch(() => {});
    })
    .finally(onDone);
  return new Response(readable, { headers: { 'x-content-type-options': 'nosniff', ...headers } });
}

export interface ProcessPart {
  id: string;
  name: string;
  result: StoredResult;
}

/** `{"<report id>": {"name": …, "data_key": …, "fields": …, "rows": …, …}, …}` */
async function* processJson(db: RequestSql, parts: ProcessPart[]): AsyncGenerator<Uint8Array> {
  const enc = new TextEncoder();
  yield enc.encode('{');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    yield enc.encode(`${i ? ',' : ''}${JSON.stringify(p.id)}:`);
    const extra = `"report_id":${JSON.stringify(p.id)},"name":${JSON.stringify(p.name)},"data_key":${JSON.stringify(p.result.data_key)},`;
    yield* resultJson(p.result, db.rowsText(p.result), extra);
  }
  yield enc.encode('}');
}

/** One CSV per report in a zip, named after the reports. */
async function* csvEntries(db: RequestSql, parts: ProcessPart[], csv: CsvOptions, modified: Date): AsyncGenerator<ZipEntry> {
  const nameOf = fileNamer('.csv');
  for (const p of parts) {
    yield {
      name: nameOf(p.name),
      data: csvStream(p.result.fields, db.chunks(p.result), csv),
      method: p.result.size_in_bytes > STORE_ABOVE_BYTES ? 'store' : 'deflate',
      modified,
    };
  }
}

/** `POST /process`: the results of a dashboard as one JSON document, a zip of CSV files or one workbook. */
export function processResponse(
  db: RequestSql,
  parts: ProcessPart[],
  opts: { format: ProcessFormat; csv?: CsvOptions; name?: string },
  onDone: () => void,
): Response {
  const base = opts.name?.trim() || 'dashboard data';
  const download = { 'cache-control': 'private, no-store' };
  const modified = new Date();
  switch (opts.format) {
    case 'csv_zip':
      return respond(
        zipStream(csvEntries(db, parts, opts.csv ?? DEFAULT_CSV_OPTIONS, modified)),
        {
          ...download,
          'content-type': MEDIA.zip,
          'content-disposition': contentDisposition(fileNamer('.zip')(base)),
        },
        onDone,
      );
    case 'xlsx':
      return respond(
        xlsxStream(
          parts.map((p) => ({ name: p.name, fields: p.result.fields, chunks: db.chunks(p.result) })),
          { modified },
        ),
        {
          ...download,
          'content-type': MEDIA.xlsx,
          'content-disposition': contentDisposition(fileNamer('.xlsx')(base)),
        },
        onDone,
      );
    default:
      return respond(processJson(db, parts), { ...download, 'content-type': MEDIA.json }, onDone);
  }
}
