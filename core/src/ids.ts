/** Opaque identifiers: a short type prefix and 20 random base-62 characters (about 119 bits). */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const ID_PREFIXES = {
  organization: 'org',
  user: 'usr',
  session: 'ses',
  user_group: 'ugr',
  api_key: 'key',
  datasource: 'dsr',
  datasource_agent: 'agt',
  dashboard: 'dsh',
  dashboard_group: 'dgr',
  report: 'rep',
  filter: 'flt',
  sql_snippet: 'snp',
  dashboard_schedule: 'sch',
  dashboard_sharing_link: 'lnk',
  export_job: 'exp',
  sql_alert: 'alr',
  sql_alert_result: 'alres',
  execution: 'exe',
  audit: 'aud',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

export function randomString(length: number): string {
  const bytes = new Uint8Array(length * 2);
  crypto.getRandomValues(bytes);
  let out = '';
  // 248 is the largest multiple of 62 under 256: rejecting bytes above it keeps the draw uniform.
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out.length === length ? out : out + randomString(length - out.length);
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomString(20)}`;
}
