/**
 * Export files for the app's downloads, fetched on the server so the browser never holds a token of the
 * API: a finished export job's file (its file_url points at the data server's `/exports/{job}`) and a
 * dashboard's data (a data process token for the data server's `POST /process`). Both stream the data
 * server's bytes on with its file name; its errors become a short text answer (download.server.ts).
 */
import type { ServiceBinding } from '../../lib/env.server';
import { downloadProblem } from '../sharing/download.server';

const DATA_ORIGIN = 'https://cairn-data.internal';
const EXPORT_PATH = /^\/exports\/[A-Za-z0-9_-]{1,64}$/;

/** The data server's path and query of a job's file_url (whatever host the API names), or null. */
export function exportFilePath(fileUrl: unknown): string | null {
  if (typeof fileUrl !== 'string') return null;
  let url: URL;
  try {
    url = new URL(fileUrl, DATA_ORIGIN);
  } catch {
    return null;
  }
  return EXPORT_PATH.test(url.pathname) && url.searchParams.has('token') ? `${url.pathname}${url.search}` : null;
}

async function passOn(res: Response | null, extra: Record<string, string> = {}): Promise<Response> {
  if (!res) return downloadProblem(503, 'The data server could not be reached. Please try again.');
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { errors?: { detail?: string }[] } | null;
    return downloadProblem(res.status >= 500 ? 503 : res.status, body?.errors?.[0]?.detail ?? `The data server answered ${res.status}.`);
  }
  const headers = new Headers({ 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
  for (const name of ['Content-Type', 'Content-Disposition', 'Content-Length']) {
    const value = res.headers.get(name);
    if (value) headers.set(name, value);
  }
  return new Response(res.body, { status: 200, headers });
}

/** Streams the file behind a finished job's file_url. */
export async function streamJobFile(data: ServiceBinding, fileUrl: unknown): Promise<Response> {
  const path = exportFilePath(fileUrl);
  if (!path) return downloadProblem(502, 'The API answered without a usable file address.');
  return passOn(await data.fetch(`${DATA_ORIGIN}${path}`).catch(() => null));
}

/** Streams the dashboard download a data process token names; `skipped` goes along as a header. */
export async function streamProcess(data: ServiceBinding, token: unknown, skipped: string[]): Promise<Response> {
  if (typeof token !== 'string' || !token) return downloadProblem(502, 'The API answered without a data process token.');
  const res = await data
    .fetch(`${DATA_ORIGIN}/process`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ data_access_token: token }),
    })
    .catch(() => null);
  return passOn(res, skipped.length ? { 'X-Cairn-Skipped': encodeURIComponent(JSON.stringify(skipped)) } : {});
}
