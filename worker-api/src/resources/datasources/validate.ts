/** Small value checks shared by the datasource, agent and alert schemas. */

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;
const IPV6 = /^\[?[0-9A-Fa-f:.]+(?:%[A-Za-z0-9]+)?\]?$/;

/** A host name, IPv4 or IPv6 address — no scheme, port, path or credentials. */
export function isHost(value: string): boolean {
  if (HOSTNAME.test(value)) return true;
  return value.split(':').length > 2 && IPV6.test(value);
}

export interface ServiceKeyCheck {
  ok: boolean;
  /** The key as compact JSON text, when ok. */
  json?: string;
  problem?: string;
}

/**
 * A Google Cloud service account key: the JSON file Google hands out (as text or as an object), with
 * `type` service_account, `project_id`, `client_email` and `private_key`.
 */
export function checkServiceKey(value: unknown): ServiceKeyCheck {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { ok: false, problem: 'is not valid JSON; paste the whole key file of the service account.' };
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, problem: 'must be the JSON object of a service account key file.' };
  }
  const key = parsed as Record<string, unknown>;
  if (key.type !== 'service_account') return { ok: false, problem: 'must be a service account key ("type": "service_account").' };
  for (const field of ['project_id', 'client_email', 'private_key'] as const) {
    if (typeof key[field] !== 'string' || !(key[field] as string).trim()) {
      return { ok: false, problem: `lacks "${field}"; paste the whole key file of the service account.` };
    }
  }
  if (!(key.private_key as string).includes('PRIVATE KEY')) return { ok: false, problem: 'has a private_key that is not a PEM private key.' };
  return { ok: true, json: JSON.stringify(key) };
}

const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;
export const MAX_EMAILS = 100;

/** Splits a comma-separated address list; returns the clean list or the first bad entry. */
export function parseEmailList(value: string): { emails: string[] } | { bad: string } {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of parts) if (!EMAIL.test(p) || p.length > 254) return { bad: p };
  return { emails: [...new Set(parts)] };
}
