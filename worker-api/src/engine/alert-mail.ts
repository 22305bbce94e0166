import type postgres from 'postgres';
import type { ResultField } from '@cairn/core';
import { collect, csvStream, xlsxStream } from '@cairn/core/export/index';
import type { Attachment, MailMessage } from '../mail/index.ts';
import type { AlertResultStatus } from './alert-evaluate.ts';
import type { ResultBucket } from '@cairn/core/results/object';
import { chunkReader, storedChunks } from './stored-chunks.ts';

/** Results larger than this are not attached (the message says so). */
export const MAX_ATTACHMENT_RESULT_BYTES = 10 * 1024 * 1024;
const PREVIEW_ROWS = 10;

export interface AlertMailContent {
  alert: {
    id: string;
    name: string;
    description: string | null;
    emails: string | null;
    cc_emails: string | null;
    bcc_emails: string | null;
    error_emails: string | null;
  };
  status: AlertResultStatus;
  /** The trigger's explanation, or the error. */
  detail: string | null;
  rowCount: number;
  fields: ResultField[];
  preview: unknown[][];
  appUrl?: string;
  /** Why the result is not attached although attach_as asks for it. */
  attachmentNote?: string | null;
}

const HEADLINE: Record<AlertResultStatus, string> = {
  ok: 'is ok',
  alert_triggered: 'was triggered',
  alert_error: 'could not be evaluated',
  query_error: 'failed: the query returned an error',
  internal_error: 'failed: Cairn could not run it',
  internal_timeout: 'failed: the query took too long',
  cancelled: 'was cancelled',
};

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const cellText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const list = (s: string | null) =>
  (s ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

/**
 * The e-mail about one alert run: to emails/cc/bcc (`kind` recipients) or to error_emails (`kind`
 * errors); the status, the trigger's or error's explanation, the row count and the first rows; a link
 * to the alert when APP_URL is set. Null when nobody is to receive it.
 */
export function alertMessage(c: AlertMailContent, kind: 'recipients' | 'errors'): MailMessage | null {
  const to = kind === 'errors' ? list(c.alert.error_emails) : list(c.alert.emails);
  const cc = kind === 'errors' ? [] : list(c.alert.cc_emails);
  const bcc = kind === 'errors' ? [] : list(c.alert.bcc_emails);
  if (!to.length && !cc.length && !bcc.length) return null;
  const subject = `Alert "${c.alert.name}" ${HEADLINE[c.status]}`;
  const link = c.appUrl ? `${c.appUrl.replace(/\/+$/, '')}/app/alerts/${encodeURIComponent(c.alert.id)}` : null;
  const lines = [
    `The SQL alert "${c.alert.name}" ${HEADLINE[c.status]} (status ${c.status}).`,
    ...(c.alert.description ? ['', c.alert.description] : []),
    ...(c.detail ? ['', c.detail] : []),
  ];
  const evaluated = c.status === 'ok' || c.status === 'alert_triggered';
  if (evaluated) lines.push('', `The query returned ${c.rowCount} ${c.rowCount === 1 ? 'row' : 'rows'}.`);
  const names = c.fields.map((f) => f.name);
  const shown = evaluated && c.preview.length && names.length ? c.preview.slice(0, PREVIEW_ROWS) : [];
  if (shown.length) {
    lines.push('', names.join('\t'), ...shown.map((r) => r.map(cellText).join('\t')));
    if (c.rowCount > shown.length) lines.push(`… and ${c.rowCount - shown.length} more`);
  }
  if (c.attachmentNote) lines.push('', c.attachmentNote);
  if (link) lines.push('', `Open the alert: ${link}`);
  const table = shown.length
    ? `<table style="border-collapse: collapse;"><tr>${names.map((n) => `<th style="border: 1px solid #ccc; padding: 2px 6px;">${escapeHtml(n)}</th>`).join('')}</tr>${shown
        .map((r) => `<tr>${r.map((v) => `<td style="border: 1px solid #ccc; padding: 2px 6px;">${escapeHtml(cellText(v))}</td>`).join('')}</tr>`)
        .join('')}</table>`
    : '';
  const paragraphs = lines
    .join('\n')
    .split('\n\n')
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`);
  const html = `<!doctype html><html><body style="font-family: system-ui, sans-serif; color: #1f2933;">${
    shown.length ? paragraphs.filter((p) => !p.includes('\t')).join('') + table : paragraphs.join('')
  }</body></html>`;
  return { to, cc, bcc, subject, text: `${lines.join('\n')}\n`, html };
}

/** The stored chunks of a result, one read per chunk (bucket or result_chunks: stored-chunks.ts). */
async function* resultChunks(sql: postgres.Sql, executionId: string, bucket: ResultBucket): AsyncGenerator<Uint8Array> {
  for await (const chunk of storedChunks(sql, bucket, executionId)) yield chunk.data;
}

/** The first rows of a stored result (from its first chunk). */
export async function firstRows(sql: postgres.Sql, executionId: string, bucket: ResultBucket): Promise<unknown[][]> {
  const row = await chunkReader(sql, bucket, executionId)(0);
  if (!row || !row.data.byteLength) return [];
  return JSON.parse(`[${new TextDecoder().decode(row.data)}]`) as unknown[][];
}

const safeName = (name: string) =>
  name
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ')
    .trim()
    .slice(0, 100) || 'alert';

/** The result as the attachment attach_as asks for (csv or excel). */
export async function resultAttachment(
  sql: postgres.Sql,
  executionId: string,
  fields: ResultField[],
  attachAs: 'csv' | 'excel',
  name: string,
  bucket: ResultBucket,
): Promise<Attachment> {
  const base = safeName(name);
  if (attachAs === 'csv') {
    return {
      filename: `${base}.csv`,
      content: await collect(csvStream(fields, resultChunks(sql, executionId, bucket))),
      contentType: 'text/csv; charset=utf-8',
    };
  }
  const sheets = [{ name: base, fields, chunks: resultChunks(sql, executionId, bucket) }];
  return { filename: `${base}.xlsx`, content: await collect(xlsxStream(sheets)) };
}
