/**
 * Data access tokens and data process tokens: short-lived, HMAC-SHA256-signed claims that let a
 * data server hand out results without an API key. A token is bound to its organization and to
 * the region that issued it; the other region's data server refuses it (403 wrong_region).
 *
 * - `data`: one stored result (`key`), for `GET /data/{key}`; optionally a download `format`
 *   (json, csv, xlsx), the CSV options and a `name` for the file.
 * - `schema`: one stored schema document (`key`), for `GET /schema/{key}`; optionally the `name`
 *   of the one schema to return.
 * - `process`: several results (`items`, each a data key and the report's name and id), for
 *   `POST /process`, with the `format` of the download (json, csv_zip, xlsx) and the CSV options.
 *
 * Every token expires at most five minutes after it was signed.
 * Wire format: a compact JWS of purpose `data`, signed by core/src/claims.ts (D70).
 */
import { ApiError } from './errors.ts';
import { peekClaims, signClaims, verifyClaims } from './claims.ts';
import { isRegion, type Region } from './regions.ts';
import {
  CSV_COLUMN_SEPARATORS,
  CSV_DECIMAL_SEPARATORS,
  CSV_QUOTE_STYLES,
  DATA_FORMATS,
  PROCESS_FORMATS,
  type CsvOptions,
  type DataFormat,
  type ProcessFormat,
} from './export/options.ts';

export const DATA_TOKEN_TTL_SECONDS = 5 * 60;

export type TokenKind = 'data' | 'process' | 'schema';

interface BaseClaims {
  org: string;
  region: Region;
  /** Expiry, unix seconds. */
  exp: number;
}

export interface DataTokenClaims extends BaseClaims {
  kind: 'data' | 'schema';
  /** The data key the token opens. */
  key: string;
  /** Download format of a result (default json). */
  format?: DataFormat;
  /** CSV options (format csv; defaults comma, point, necessary). */
  csv?: CsvOptions;
  /** A result: the file name (the report's name). A schema: the one schema to return. */
  name?: string;
}

export interface ProcessItem {
  /** Data key of the result. */
  key: string;
  /** The report's name: file name in the zip, sheet name in the workbook. */
  name: string;
  /** The report's id: the result's key in the JSON answer. */
  id: string;
}

export interface ProcessTokenClaims extends BaseClaims {
  kind: 'process';
  items: ProcessItem[];
  format: ProcessFormat;
  csv?: CsvOptions;
  /** Name of the download (the dashboard's name). */
  name?: string;
}

export type AnyTokenClaims = DataTokenClaims | ProcessTokenClaims;

type Unsigned<T> = Omit<T, 'exp'> & { exp?: number };

async function sign(claims: Unsigned<AnyTokenClaims>, secret: string, now: number): Promise<string> {
  const latest = Math.floor(now / 1000) + DATA_TOKEN_TTL_SECONDS;
  // Never longer than the TTL: an expiry further out is cut back to it.
  const exp = Math.min(claims.exp ?? latest, latest);
  return signClaims('data', { ...claims, exp }, secret, { exp });
}

/** Signs a data access token (kinds `data` and `schema`). */
export function signDataToken(claims: Unsigned<DataTokenClaims>, secret: string, now = Date.now()): Promise<string> {
  return sign(claims, secret, now);
}

/** Signs a data process token for `POST /process`. */
export function signProcessToken(claims: Unsigned<ProcessTokenClaims>, secret: string, now = Date.now()): Promise<string> {
  return sign(claims, secret, now);
}

const malformed = () => new ApiError('invalid_data_token', 'The data access token is malformed.');

/**
 * Checks a token in this order: well-formed (401 invalid_data_token), issued in this region (403
 * wrong_region; read before the signature because the other region's secret signed it — the claim
 * only says where to go and grants nothing), signature (401 invalid_data_token), expiry (401
 * data_token_expired), kind (401 invalid_data_token naming the kinds this call takes).
 */
async function verify(token: string, secret: string, region: Region, kinds: readonly TokenKind[], now: number): Promise<AnyTokenClaims> {
  if (typeof token !== 'string') throw malformed();
  const claims = peekClaims(token) as AnyTokenClaims | null;
  if (!claims) throw malformed();
  // The claims are read before the signature is checked (the region), so every one used is checked for its
  // type first: a crafted object with a broken toString must be a 401, never a thrown TypeError.
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims) || typeof claims.exp !== 'number') throw malformed();
  if (typeof claims.region !== 'string' || !isRegion(claims.region) || typeof claims.kind !== 'string' || typeof claims.org !== 'string') {
    throw malformed();
  }
  if (claims.region !== region) {
    throw new ApiError(
      'wrong_region',
      `This token was issued in region "${String(claims.region)}"; send it to that region's data server, not "${region}".`,
      // Only a plain region name goes back (a crafted claim may be anything).
      typeof claims.region === 'string' && isRegion(claims.region) ? { meta: { region: claims.region } } : {},
    );
  }
  // Signature, then shape, then expiry (an expired token was signed: its signature checked out).
  const checked = await verifyClaims('data', token, secret, { now });
  if (!checked.ok && checked.why === 'malformed') throw malformed();
  if (!checked.ok && checked.why === 'signature') throw new ApiError('invalid_data_token', 'The data access token is not valid.');
  if (!wellShaped(claims)) throw malformed();
  if (!checked.ok) throw new ApiError('data_token_expired', 'The data access token has expired; request a new one.');
  if (!kinds.includes(claims.kind)) {
    const wanted = kinds.map((k) => (k === 'process' ? 'data process token' : `${k} access token`)).join(' or ');
    throw new ApiError('invalid_data_token', `This is a ${claims.kind} token; this call takes a ${wanted}.`);
  }
  return claims;
}

/** A string PostgreSQL can compare and a header can carry: no U+0000, no unpaired surrogate. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isString = (v: unknown): v is string => typeof v === 'string' && !UNSTORABLE.test(v);
const oneOf = (list: readonly string[], v: unknown) => isString(v) && list.includes(v);
const optional = (v: unknown, ok: (v: unknown) => boolean) => v === undefined || ok(v);
const isCsv = (v: unknown): boolean => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return oneOf(CSV_COLUMN_SEPARATORS, o.column_separator) && oneOf(CSV_DECIMAL_SEPARATORS, o.decimal_separator) && oneOf(CSV_QUOTE_STYLES, o.quote_style);
};
const isItem = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && isString((v as ProcessItem).key) && isString((v as ProcessItem).name) && isString((v as ProcessItem).id);

/**
 * Whether signed claims have the shapes the data server reads (checked after the signature: only the
 * API signs tokens, but a wrong shape must be a 401, never a 500 halfway through a download).
 */
function wellShaped(c: AnyTokenClaims): boolean {
  const o = c as unknown as Record<string, unknown>;
  if (!isString(o.org) || !optional(o.csv, isCsv) || !optional(o.name, isString)) return false;
  if (c.kind === 'process') return Array.isArray(o.items) && o.items.every(isItem) && oneOf(PROCESS_FORMATS, o.format);
  return isString(o.key) && optional(o.format, (f) => oneOf(DATA_FORMATS, f));
}

/**
 * Verifies a data access token for this data server (kind `data` unless `expect.kind` says
 * otherwise). Throws an ApiError naming what is wrong; see `verify` for the order of the checks.
 */
export async function verifyDataToken(
  token: string,
  secret: string,
  expect: { region: Region; kind?: 'data' | 'schema' | ('data' | 'schema')[] },
  now = Date.now(),
): Promise<DataTokenClaims> {
  const kinds = expect.kind === undefined ? ['data' as const] : Array.isArray(expect.kind) ? expect.kind : [expect.kind];
  const claims = (await verify(token, secret, expect.region, kinds, now)) as DataTokenClaims;
  if (typeof claims.key !== 'string') throw malformed();
  return claims;
}

/** Verifies a data process token (`POST /process`). */
export async function verifyProcessToken(token: string, secret: string, expect: { region: Region }, now = Date.now()): Promise<ProcessTokenClaims> {
  const claims = (await verify(token, secret, expect.region, ['process'], now)) as ProcessTokenClaims;
  if (!Array.isArray(claims.items) || typeof claims.format !== 'string') throw malformed();
  return claims;
}

/** Data keys name a stored result: `{region}/{org}/{execution}/{hash}`. They contain slashes. */
export function makeDataKey(region: Region, org: string, executionId: string, hash: string): string {
  return `${region}/${org}/${executionId}/${hash}`;
}

export function parseDataKey(key: string): { region: string; org: string; executionId: string; hash: string } | null {
  const parts = key.split('/');
  if (parts.length !== 4 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  const [region, org, executionId, hash] = parts as [string, string, string, string];
  return { region, org, executionId, hash };
}
