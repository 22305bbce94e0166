import { describe, expect, it } from 'vitest';
import { clearSessionCookie, loginUrl, readSessionToken, safeNext, sessionCookie } from './session.server';

const TOKEN = 'abcdefghijklmnopqrstuvwxyz012345';

describe('session cookie', () => {
  it('reads the token from the Cookie header and ignores malformed values', () => {
    const req = (cookie: string) => new Request('http://x/app/', { headers: { Cookie: cookie } });
    expect(readSessionToken(req(`a=1; cairn_session=${TOKEN}; b=2`))).toBe(TOKEN);
    expect(readSessionToken(req('cairn_session=short'))).toBeNull();
    expect(readSessionToken(req('cairn_session=%E0%A4%A'))).toBeNull();
    expect(readSessionToken(req('other=1'))).toBeNull();
    expect(readSessionToken(new Request('http://x/'))).toBeNull();
  });

  it('is HttpOnly and SameSite=Lax, Secure only over https', () => {
    const http = sessionCookie(new Request('http://x/'), TOKEN, new Date(Date.now() + 3600_000).toISOString());
    expect(http).toMatch(/^cairn_session=abc.*; Max-Age=(359\d|3600); Path=\/; HttpOnly; SameSite=Lax$/);
    expect(sessionCookie(new Request('https://x/'), TOKEN)).toContain('; Secure');
    expect(clearSessionCookie(new Request('https://x/'))).toBe('cairn_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure');
  });

  it('only follows same-site app paths after sign-in', () => {
    expect(safeNext('/app/dashboards/dsh_1?f.x=1')).toBe('/app/dashboards/dsh_1?f.x=1');
    for (const bad of [
      'https://evil.example/',
      '//evil.example/app',
      '/docs',
      '/app\\..\\x',
      '/app/login',
      null,
      '',
      '/app/\r\nSet-Cookie: x=1',
      '/app/\n',
      '/app\t/x',
      '/app/\u0000',
      '/app/\u007f',
    ]) {
      expect(safeNext(bad)).toBe('/app/');
    }
    expect(loginUrl(new Request('http://x/app/dashboards/d?f.a=1'))).toBe('/app/login?next=%2Fapp%2Fdashboards%2Fd%3Ff.a%3D1');
  });
});
