/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP) as authenticator apps make them:
 * HMAC-SHA-1, 30-second steps, 6 digits, the secret in base32 (RFC 4648, no padding). WebCrypto only,
 * so it runs the same in workerd, Node and the browser tests.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;

/** Base32 without padding (what otpauth:// URIs and authenticator apps expect). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32, ignoring case, spaces, dashes and padding; throws on any other character. */
export function base32Decode(text: string): Uint8Array {
  const clean = text.toUpperCase().replace(/[\s=-]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const i = ALPHABET.indexOf(ch);
    if (i < 0) throw new Error(`invalid base32 character "${ch}"`);
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** A new random secret: 20 bytes (160 bits, the HMAC-SHA-1 block RFC 4226 recommends), base32. */
export function newTotpSecret(): string {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return base32Encode(bytes);
}

/** The 30-second step a moment falls in. */
export function totpStep(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);
}

/** HOTP (RFC 4226) of a raw key and counter, `digits` long, with the given HMAC hash. */
export async function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS, hash: 'SHA-1' | 'SHA-256' | 'SHA-512' = 'SHA-1'): Promise<string> {
  const msg = new Uint8Array(8);
  // The counter is a 64-bit big-endian integer; steps fit well within 2^53.
  new DataView(msg.buffer).setUint32(0, Math.floor(counter / 2 ** 32));
  new DataView(msg.buffer).setUint32(4, counter >>> 0);
  const k = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', k, msg));
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** The code of a base32 secret for a moment (default now). */
export async function totpCode(secret: string, nowMs = Date.now()): Promise<string> {
  return hotp(base32Decode(secret), totpStep(nowMs));
}

/**
 * Checks a code against the previous, current and next step (clocks drift). Answers the step it
 * matched, or null. A step at or before `lastUsedStep` is refused: a code works once (replay), and
 * so does any older one. The caller stores the answer as the new last used step.
 */
export async function verifyTotp(secret: string, code: string, opts: { nowMs?: number; lastUsedStep?: number | null } = {}): Promise<number | null> {
  const clean = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(clean)) return null;
  const key = base32Decode(secret);
  const now = totpStep(opts.nowMs ?? Date.now());
  let matched: number | null = null;
  // Every window step is computed, so the time taken does not tell which one matched.
  for (const step of [now - 1, now, now + 1]) {
    const expected = await hotp(key, step);
    let diff = 0;
    for (let i = 0; i < TOTP_DIGITS; i++) diff |= expected.charCodeAt(i) ^ clean.charCodeAt(i);
    if (diff === 0 && matched === null) matched = step;
  }
  if (matched === null) return null;
  if (opts.lastUsedStep != null && matched <= opts.lastUsedStep) return null;
  return matched;
}

/** The otpauth:// URI an authenticator app reads (from a QR code or pasted): `Issuer:account`. */
export function otpauthUri(opts: { secret: string; account: string; issuer: string }): string {
  const label = `${encodeURIComponent(opts.issuer)}:${encodeURIComponent(opts.account)}`;
  const q = new URLSearchParams({
    secret: opts.secret,
    issuer: opts.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${q.toString().replace(/\+/g, '%20')}`;
}

/** The secret in groups of four, as people copy it by hand. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
