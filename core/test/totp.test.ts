import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, groupSecret, hotp, newTotpSecret, otpauthUri, totpCode, totpStep, verifyTotp } from '../src/totp.ts';

const enc = new TextEncoder();
// The RFC 6238 (appendix B) SHA-1 seed: the ASCII digits "1234567890" twice.
const SEED = enc.encode('12345678901234567890');
const SEED_B32 = base32Encode(SEED);

describe('RFC 6238 test vectors (SHA-1)', () => {
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, code] of vectors) {
    it(`T=${seconds}: ${code} (8 digits) and its last 6 digits`, async () => {
      expect(await hotp(SEED, totpStep(seconds * 1000), 8)).toBe(code);
      expect(await totpCode(SEED_B32, seconds * 1000)).toBe(code.slice(2));
    });
  }

  it('RFC 4226 HOTP vectors for counters 0–9', async () => {
    const want = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    for (let i = 0; i < want.length; i++) expect(await hotp(SEED, i)).toBe(want[i]);
  });
});

describe('base32', () => {
  it('round-trips and matches RFC 4648 examples', () => {
    expect(base32Encode(enc.encode('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Encode(enc.encode('f'))).toBe('MY');
    expect(SEED_B32).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(new TextDecoder().decode(base32Decode('mzxw 6ytb-oi=='))).toBe('foobar');
    expect(() => base32Decode('ABC1')).toThrow(/base32/);
  });

  it('new secrets are 32 base32 characters (160 bits) and differ', () => {
    const a = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(a).not.toBe(newTotpSecret());
    expect(groupSecret('ABCDEFGHIJ')).toBe('ABCD EFGH IJ');
  });
});

describe('verifyTotp', () => {
  const now = 1_700_000_000_000;
  const step = totpStep(now);

  it('accepts the current, previous and next step, not two away', async () => {
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now), { nowMs: now })).toBe(step);
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now - 30_000), { nowMs: now })).toBe(step - 1);
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now + 30_000), { nowMs: now })).toBe(step + 1);
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now - 60_000), { nowMs: now })).toBeNull();
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now + 60_000), { nowMs: now })).toBeNull();
  });

  it('refuses a code of a step already used (replay) and anything malformed', async () => {
    const code = await totpCode(SEED_B32, now);
    expect(await verifyTotp(SEED_B32, code, { nowMs: now, lastUsedStep: step })).toBeNull();
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now - 30_000), { nowMs: now, lastUsedStep: step })).toBeNull();
    expect(await verifyTotp(SEED_B32, await totpCode(SEED_B32, now + 30_000), { nowMs: now, lastUsedStep: step })).toBe(step + 1);
    expect(await verifyTotp(SEED_B32, ` ${code.slice(0, 3)} ${code.slice(3)} `, { nowMs: now })).toBe(step);
    for (const bad of ['', '12345', '1234567', 'abcdef']) expect(await verifyTotp(SEED_B32, bad, { nowMs: now })).toBeNull();
  });
});

describe('otpauthUri', () => {
  it('builds the key URI authenticator apps read', () => {
    const uri = otpauthUri({ secret: 'JBSWY3DPEHPK3PXP', account: 'ada@example.com', issuer: 'Cairn Acme' });
    expect(uri).toBe('otpauth://totp/Cairn%20Acme:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Cairn%20Acme&algorithm=SHA1&digits=6&period=30');
    const u = new URL(uri);
    expect(u.protocol).toBe('otpauth:');
    expect(u.searchParams.get('secret')).toBe('JBSWY3DPEHPK3PXP');
  });
});
