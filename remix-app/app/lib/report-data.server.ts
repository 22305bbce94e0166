/**
 * Loads one report's result: `POST /reports/{id}/data` on the API, then `GET /data/<data_key>` on the
 * data server through the `DATA` binding. Never throws: a failure becomes the tile's error message.
 */
import type { ApiClient } from './api.server.ts';
import type { ServiceBinding } from './env.server.ts';
import type { InputParameters } from './filters.ts';
import type { Cell, DataField, ReportData } from './types.ts';

const DATA_ORIGIN = 'https://cairn-data.internal';
/** Rows sent to the browser per report; tables show the first 200, charts rarely need more. */
const MAX_ROWS = 5000;
const DATA_KEY = /^[A-Za-z0-9_\-.=]+(\/[A-Za-z0-9_\-.=]+)*$/;

interface DataAnswer {
  data_key?: unknown;
  data_access_token?: unknown;
}
interface ResultDocument {
  fields?: DataField[];
  rows?: Cell[][];
  data_timestamp?: string | null;
}

export async function loadReportData(
  api: ApiClient,
  dataServer: ServiceBinding,
  reportId: string,
  parameters: InputParameters,
  noDataMessage: string | null | undefined,
): Promise<ReportData> {
  const empty: ReportData = { status: 'empty', message: noDataMessage?.trim() || 'No data' };
  try {
    const answer = await api.call<DataAnswer>('POST', `/reports/${encodeURIComponent(reportId)}/data`, {
      body: { parameters, data_format: 'json' },
    });
    if (!answer.ok) return { status: 'error', message: answer.problem.message };
    if (answer.status === 204 || !answer.body) return empty;
    const { data_key: key, data_access_token: token } = answer.body;
    if (typeof key !== 'string' || typeof token !== 'string' || !DATA_KEY.test(key) || key.includes('..')) {
      return { status: 'error', message: 'The API answered without a usable data key.' };
    }
    // The path comes from data_key (data_url names the public data server, not the binding).
    const res = await dataServer.fetch(`${DATA_ORIGIN}/data/${key}`, {
      headers: { Authorization: `Data ${token}`, Accept: 'application/json' },
    });
    if (res.status === 204) return empty;
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* reported below */
    }
    if (!res.ok) {
      const detail = (body as { errors?: { detail?: string }[] } | null)?.errors?.[0]?.detail;
      return { status: 'error', message: detail || `The data server answered ${res.status}.` };
    }
    const doc = body as ResultDocument | null;
    if (!doc || !Array.isArray(doc.fields) || !Array.isArray(doc.rows)) {
      return { status: 'error', message: 'The data server sent a result the app cannot read.' };
    }
    if (doc.rows.length === 0) return empty;
    return {
      status: 'ok',
      fields: doc.fields,
      rows: doc.rows.slice(0, MAX_ROWS),
      rowCount: doc.rows.length,
      dataTimestamp: doc.data_timestamp ?? null,
    };
  } catch (err) {
    return { status: 'error', message: 'The data server could not be reached.' };
  }
}
