/** IP allow lists of sharing links: comma-separated IPv4/IPv6 addresses and CIDR ranges. */

const V4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => V4_PART.test(p));
}

export function isIPv6(s: string): boolean {
  if (!/^[0-9A-Fa-f:.]+$/.test(s) || s.length > 45) return false;
  let groups = 8;
  let body = s;
  // An embedded IPv4 tail (::ffff:192.0.2.1) counts as two groups.
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(s.slice(lastColon + 1))) return false;
    body = `${s.slice(0, lastColon + 1)}0`;
    groups = 7;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const hex = (h: string) => (h === '' ? [] : h.split(':'));
  const parts = halves.flatMap(hex);
  if (!parts.every((p) => /^[0-9A-Fa-f]{1,4}$/.test(p))) return false;
  // "::" stands for at least one group of zeros.
  return halves.length === 2 ? parts.length < groups : parts.length === groups;
}

/** Why an entry is not an address or a range, or null when it is one. */
function ipEntryProblem(entry: string): string | null {
  const [addr, prefix, extra] = entry.split('/');
  if (extra !== undefined || !addr) return 'is not an IP address or CIDR range';
  const v4 = isIPv4(addr);
  const v6 = !v4 && isIPv6(addr);
  if (!v4 && !v6) return 'is not an IPv4 or IPv6 address';
  if (prefix === undefined) return null;
  const max = v4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `has a prefix length outside 0–${max}`;
  return null;
}

/**
 * Splits, trims and checks a list. Returns the normalized list ("a, b") or null for an empty one, or
 * the first bad entry with the reason.
 */
export function parseIpWhitelist(raw: string): { ok: true; value: string | null } | { ok: false; entry: string; index: number; reason: string } {
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.every((e) => e === '')) return { ok: true, value: null };
  for (const [index, entry] of entries.entries()) {
    const reason = entry === '' ? 'is empty' : ipEntryProblem(entry);
    if (reason) return { ok: false, entry, index, reason };
  }
  return { ok: true, value: entries.join(', ') };
}
