import { describe, expect, it } from 'vitest';
import { peekClaims, signClaims, verifyClaims } from '../src/claims.ts';

const SECRET = 'a deployment secret of some length';
const now = Date.UTC(2026, 0, 1);
const exp = now / 1000 + 300;

describe('signed claims (D70)', () => {
  it('round-trips the claims of its purpose', async () => {
    const token = await signClaims('render', { org: 'o1', dashboard: 'd1' }, SECRET, { exp });
    expect(token.split('.')).toHaveLength(3);
    const checked = await verifyClaims('render', token, SECRET, { now });
    expect(checked).toEqual({ ok: true, claims: { org: 'o1', dashboard: 'd1', exp } });
    expect(peekClaims(token)).toMatchObject({ org: 'o1' });
  });

  it('one purpose never passes for another, even under the same secret', async () => {
    const render = await signClaims('render', { org: 'o1' }, SECRET, { exp });
    expect(await verifyClaims('data', render, SECRET, { now })).toEqual({ ok: false, why: 'malformed' });
    expect(await verifyClaims('link-grant', render, SECRET, { now })).toEqual({ ok: false, why: 'malformed' });
    // The header says 'data' but the key is render's: the signature fails.
    const [, body, sig] = render.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'cairn-data' })).toString('base64url');
    expect(await verifyClaims('data', `${header}.${body}.${sig}`, SECRET, { now })).toEqual({ ok: false, why: 'signature' });
  });

  it('refuses another secret, altered claims, expiry and a changed context', async () => {
    const grant = await signClaims('link-grant', { link: 'l1' }, SECRET, { exp, context: 'hash-1' });
    expect((await verifyClaims('link-grant', grant, SECRET, { now, context: 'hash-1' })).ok).toBe(true);
    expect(await verifyClaims('link-grant', grant, SECRET, { now, context: 'hash-2' })).toEqual({ ok: false, why: 'signature' });
    expect(await verifyClaims('link-grant', grant, 'another secret', { now, context: 'hash-1' })).toEqual({ ok: false, why: 'signature' });
    const [head, body, sig] = grant.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), link: 'l2' })).toString('base64url');
    expect(await verifyClaims('link-grant', `${head}.${altered}.${sig}`, SECRET, { now, context: 'hash-1' })).toEqual({ ok: false, why: 'signature' });
    expect(await verifyClaims('link-grant', grant, SECRET, { now: exp * 1000, context: 'hash-1' })).toEqual({ ok: false, why: 'expired' });
  });

  it('answers malformed for anything that is not a token, never throws', async () => {
    for (const bad of ['', 'x', 'a.b', 'a.b.c', '...', `${'a'.repeat(10)}.${'b'.repeat(10)}`, 42, null, undefined, {}]) {
      expect(await verifyClaims('data', bad, SECRET, { now })).toEqual({ ok: false, why: 'malformed' });
    }
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'cairn-data' })).toString('base64url')}.${Buffer.from('{"exp":9999999999}').toString('base64url')}.`;
    expect((await verifyClaims('data', none, SECRET, { now })).ok).toBe(false);
  });
});
