/**
 * Matching a client address against a sharing link's allow-list (entries as the sharing-links module
 * stores them: IPv4/IPv6 addresses and CIDR ranges, comma-separated). Addresses become integers
 * (32 or 128 bits); an IPv4-mapped IPv6 address (::ffff:192.0.2.1) counts as its IPv4 address.
 */
import { isIPv4, isIPv6 } from '../dashboard-sharing-links/ip.ts';

interface Address { v: 4 | 6; n: bigint }

function v4ToBigInt(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(s: string): bigint {
  let text = s;
  // An embedded IPv4 tail (::ffff:192.0.2.1) is the last two 16-bit groups.
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = v4ToBigInt(s.slice(lastColon + 1));
    text = `${s.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (h: string) => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<number>(Math.max(0, zeros)).fill(0), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** An address as an integer, or null when the text is not an IP address. */
export function parseAddress(text: string): Address | null {
  const s = text.trim().replace(/^\[|\]$/g, '');
  if (isIPv4(s)) return { v: 4, n: v4ToBigInt(s) };
  if (!isIPv6(s)) return null;
  const n = v6ToBigInt(s);
  // ::ffff:a.b.c.d is an IPv4 client seen through an IPv6 socket.
  if (n >> 32n === 0xffffn) return { v: 4, n: n & 0xffffffffn };
  return { v: 6, n };
}

function entryMatches(entry: string, ip: Address): boolean {
  const [addr, prefix] = entry.split('/');
  const net = addr ? parseAddress(addr) : null;
  if (!net || net.v !== ip.v) return false;
  const bits = ip.v === 4 ? 32 : 128;
  const len = prefix === undefined ? bits : Number(prefix);
  if (!Number.isInteger(len) || len < 0 || len > bits) return false;
  const shift = BigInt(bits - len);
  return net.n >> shift === ip.n >> shift;
}

/** True when `list` is empty, or `clientIp` is one of its addresses or inside one of its ranges. */
export function ipAllowed(list: string | null, clientIp: string | null): boolean {
  const entries = (list ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  if (!entries.length) return true;
  const ip = clientIp ? parseAddress(clientIp) : null;
  if (!ip) return false;
  return entries.some((e) => entryMatches(e, ip));
}
