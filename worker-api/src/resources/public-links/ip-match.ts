/**
 * Matching a client address against a sharing link's allow-list (entries as the sharing-links module
 * stores them: IPv4/IPv6 addresses and CIDR ranges, comma-separated), with ipaddr.js. An IPv4-mapped
 * IPv6 address (::ffff:192.0.2.1) counts as its IPv4 address.
 */
import ipaddr from 'ipaddr.js';
import { isIPv4, isIPv6 } from '../dashboard-sharing-links/ip.ts';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** An address, or null when the text is not an IP address (brackets around an IPv6 address are dropped). */
export function parseAddress(text: string): Address | null {
  const s = text.trim().replace(/^\[|\]$/g, '');
  // The strict forms only: ipaddr.js alone would also take "10.1" or "0x0a.0.0.1".
  if (!isIPv4(s) && !isIPv6(s)) return null;
  return ipaddr.process(s);
}

function entryMatches(entry: string, ip: Address): boolean {
  const [addr, prefix] = entry.split('/');
  const net = addr ? parseAddress(addr) : null;
  if (!net || net.kind() !== ip.kind()) return false;
  const bits = ip.kind() === 'ipv4' ? 32 : 128;
  const len = prefix === undefined ? bits : Number(prefix);
  if (!Number.isInteger(len) || len < 0 || len > bits) return false;
  return ip.match(net, len);
}

/** True when `list` is empty, or `clientIp` is one of its addresses or inside one of its ranges. */
export function ipAllowed(list: string | null, clientIp: string | null): boolean {
  const entries = (list ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!entries.length) return true;
  const ip = clientIp ? parseAddress(clientIp) : null;
  if (!ip) return false;
  return entries.some((e) => entryMatches(e, ip));
}
