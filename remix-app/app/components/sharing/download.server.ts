/**
 * Report downloads (CSV, XLSX): the API hands out a data key and a token whose claims carry the format;
 * the data server (DATA service binding) writes the file; this passes its bytes to the browser as they
 * come, with a file name. Used by the app's report menu and by public sharing links.
 */
import type { ServiceBinding } from '../../lib/env.server';

const DATA_ORIGIN = 'https://cairn-data.internal';
const DATA_KEY = /^[A-Za-z0-9_\-.=]+(\/[A-Za-z0-9_\-.=]+)*$/;

export type DownloadFormat = 'csv' | 'xlsx';

const MEDIA: Record<DownloadFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export function parseFormat(value: string | null): DownloadFormat | null {
  return value === 'csv' || value === 'xlsx' ? value : null;
}

/** A file name from a report name: letters, digits, spaces, dots, dashes and underscores; never empty. */
export function fileName(name: string | null | undefined, format: DownloadFormat): string {
  const base =
    (name ?? '')
      .normalize('NFKD')
      .replace(/[^\w .-]+/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100) || 'report';
  return `${base}.${format}`;
}

function contentDisposition(name: string): string {
  return `attachment; filename="${name.replace(/"/g, '')}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function downloadProblem(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' } });
}

/** Fetches the file behind a data handle and streams it on; the data server's errors become a short text answer. */
export async function streamFile(
  data: ServiceBinding,
  handle: { data_key?: unknown; data_access_token?: unknown },
  format: DownloadFormat,
  name: string,
): Promise<Response> {
  const key = handle.data_key;
  const token = handle.data_access_token;
  if (typeof key !== 'string' || typeof token !== 'string' || !DATA_KEY.test(key) || key.includes('..')) {
    return downloadProblem(502, 'The API answered without a usable data key.');
  }
  let res: Response;
  try {
    res = await data.fetch(`${DATA_ORIGIN}/data/${key}`, { headers: { Authorization: `Data ${token}` } });
  } catch {
    return downloadProblem(503, 'The data server could not be reached. Please try again.');
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { errors?: { detail?: string }[] } | null;
    return downloadProblem(res.status >= 500 ? 503 : res.status, body?.errors?.[0]?.detail ?? `The data server answered ${res.status}.`);
  }
  const type = res.headers.get('Content-Type') ?? '';
  // A data server that does not write this format yet answers JSON: say so instead of a mislabelled file.
  if (type.startsWith('application/json')) {
    await res.body?.cancel();
    return downloadProblem(501, `The data server does not offer ${format.toUpperCase()} files yet.`);
  }
  return new Response(res.body, {
    status: 200,
    headers: {
      'Content-Type': type || MEDIA[format],
      'Content-Disposition': contentDisposition(fileName(name, format)),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}
