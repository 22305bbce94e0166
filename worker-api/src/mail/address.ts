/**
 * Mailbox addresses: checked before they reach the SMTP envelope or a header (ASCII only, no white space,
 * angle brackets or line breaks: nothing a header or an SMTP command could be split with), parsed from
 * `Name <addr>` strings (MAIL_FROM) and written as RFC 5322 header tokens.
 */
import { headerText, isPlainAscii } from './encode.ts';

export interface Mailbox {
  name?: string;
  address: string;
}

export type AddressInput = string | Mailbox;

/** local@domain with printable ASCII; the domain has a dot-free label or more (localhost is fine). */
const ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

function isValidAddress(address: string): boolean {
  return address.length <= 254 && ADDRESS.test(address) && !address.startsWith('.') && !address.includes('..');
}

class AddressError extends Error {}

/** `a@b.c`, `Name <a@b.c>` or `"Name, Inc." <a@b.c>` → a checked Mailbox. */
export function parseMailbox(input: AddressInput): Mailbox {
  if (typeof input !== 'string') return checked({ ...input, address: input.address.trim() });
  const s = input.trim();
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(s);
  if (!m) return checked({ address: s });
  let name = m[1]!.trim();
  if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  return checked(name ? { name, address: m[2]!.trim() } : { address: m[2]!.trim() });
}

function checked(mb: Mailbox): Mailbox {
  if (!isValidAddress(mb.address)) throw new AddressError(`${JSON.stringify(mb.address)} is not an e-mail address this mailer can send to`);
  return mb;
}

/** A list that may come as one comma-separated string (DashboardSchedule.emails), an array, or nothing. */
export function parseMailboxes(input: AddressInput | AddressInput[] | undefined): Mailbox[] {
  if (input === undefined) return [];
  const items = Array.isArray(input) ? input : typeof input === 'string' ? splitAddressList(input) : [input];
  return items.map(parseMailbox);
}

/** Splits on commas outside quotes and angle brackets; empty entries dropped. */
function splitAddressList(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let angle = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    else if (ch === '<' && !quoted) angle = true;
    else if (ch === '>' && !quoted) angle = false;
    if (ch === ',' && !quoted && !angle) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter(Boolean);
}

/** RFC 5322 "specials": a display name holding one of them must be quoted. */
const SPECIALS = /[()<>[\]:;@\\,."]/;

/** A mailbox as header tokens (each but the first starting with its white space, for folding). */
function mailboxTokens(mb: Mailbox): string[] {
  const name = mb.name?.replace(/[\r\n]+/g, ' ').trim();
  if (!name) return [mb.address];
  let nameTokens: string[];
  if (isPlainAscii(name) && !name.includes('=?')) {
    nameTokens = SPECIALS.test(name) ? [`"${name.replace(/(["\\])/g, '\\$1')}"`] : name.split(/(?=[ \t])/);
  } else nameTokens = headerText(name);
  return [...nameTokens, ` <${mb.address}>`];
}

/** Tokens of an address-list header (commas after all but the last mailbox). */
export function addressListTokens(list: Mailbox[]): string[] {
  const out: string[] = [];
  list.forEach((mb, i) => {
    const tokens = mailboxTokens(mb);
    if (i > 0) tokens[0] = ` ${tokens[0]}`;
    if (i < list.length - 1) tokens[tokens.length - 1] += ',';
    out.push(...tokens);
  });
  return out;
}
