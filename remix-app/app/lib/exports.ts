/**
 * Export downloads of the app (pure; unit-tested): the state of an export job as the UI words it, how
 * often to ask again, and the file names and messages of the dashboard's data download.
 */

import type { ApiSchema } from '@cairn/client';

export type ExportFormat = 'pdf' | 'png' | 'csv';
/** The file downloads of a dashboard's data (POST /dashboards/{id}/data's data_format, JSON aside). */
export type DataFormat = Exclude<ApiSchema<'DashboardDataRequest'>['data_format'], 'json'>;
/** An export job's state (the app's resource routes pass the API's on). */
export type JobStatus = ApiSchema<'ExportJob'>['attributes']['job_status'];

export type ExportState =
  | { phase: 'idle' }
  | { phase: 'starting'; label: string }
  | { phase: 'waiting'; label: string; jobId: string; reused: boolean }
  | { phase: 'done'; label: string; reused: boolean }
  | { phase: 'empty'; label: string }
  | { phase: 'failed'; label: string; message: string };

/** The name a format goes by in the menu and its messages. */
export function formatLabel(format: ExportFormat | DataFormat, unlimited = false): string {
  if (format === 'csv') return unlimited ? 'full CSV' : 'CSV';
  if (format === 'csv_zip') return 'CSV files';
  if (format === 'xlsx') return 'Excel workbook';
  return format.toUpperCase();
}

/** One line for the status next to the menu: progress, success, nothing to download, or the failure. */
export function exportMessage(state: ExportState): string | null {
  switch (state.phase) {
    case 'idle':
      return null;
    case 'starting':
    case 'waiting':
      return `Preparing ${state.label}…${state.phase === 'waiting' && state.reused ? ' (a file started in the last 10 minutes is reused)' : ''}`;
    case 'done':
      return state.reused ? `Downloaded the ${state.label} started in the last 10 minutes.` : `Downloaded the ${state.label}.`;
    case 'empty':
      return `Nothing to download: no report has rows you may download.`;
    case 'failed':
      return `The ${state.label} could not be made: ${state.message}`;
  }
}

/** Whether the poll goes on for this job status. */
export function isPending(status: JobStatus): boolean {
  return status === 'started' || status === 'running';
}

/** Seconds-scale back-off: 1 s for the first polls, then slower, at most 5 s. */
export function nextPollDelay(attempt: number): number {
  return Math.min(5000, 1000 + Math.max(0, attempt - 5) * 500);
}

/** Gives up after this long (the API writes off lost jobs itself, but the button must not spin forever). */
export const EXPORT_TIMEOUT_MS = 10 * 60_000;

/** The file name from a Content-Disposition header (filename* first), or the fallback. */
export function dispositionFileName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      /* fall through to the plain name */
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(header);
  const name = (plain?.[1] ?? plain?.[2] ?? '').trim();
  return name || fallback;
}

/** A fallback file name for a dashboard's data: its name (safe characters only) and the format's extension. */
export function dataFileName(name: string, format: DataFormat): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/[^\w .-]+/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100) || 'dashboard';
  return `${base}.${format === 'csv_zip' ? 'zip' : 'xlsx'}`;
}

/** The message of an error answer of the app's routes (JSON `{error: {message}}` or plain text). */
export function errorText(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed?.error?.message === 'string' && parsed.error.message) return parsed.error.message;
  } catch {
    /* plain text */
  }
  const text = body.trim();
  if (text) return text;
  if (status === 403) return 'You may not download this.';
  return `The request failed with status ${status}.`;
}

/** Reports the data download left out (the header the app's route sets), as a short note; null when none. */
export function skippedNote(header: string | null): string | null {
  if (!header) return null;
  let names: unknown;
  try {
    names = JSON.parse(decodeURIComponent(header));
  } catch {
    return null;
  }
  if (!Array.isArray(names) || names.length === 0) return null;
  const list = names
    .filter((n): n is string => typeof n === 'string')
    .map((n) => `“${n}”`)
    .join(', ');
  return `Left out (downloads off or no data): ${list}.`;
}
