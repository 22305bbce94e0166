import { describe, expect, it } from 'vitest';
import { csrfProblem, isProtectedPath } from './csrf.server';

const req = (method: string, headers: Record<string, string> = {}) => new Request('https://cairn.example.com/app/administration/users', { method, headers });

describe('csrfProblem', () => {
  it('lets reads through whatever their origin', () => {
    expect(csrfProblem(req('GET', { Origin: 'https://evil.example' }))).toBeNull();
    expect(csrfProblem(req('HEAD'))).toBeNull();
  });

  it('accepts writes from the app’s own origin', () => {
    expect(csrfProblem(req('POST', { Origin: 'https://cairn.example.com' }))).toBeNull();
    expect(csrfProblem(req('DELETE', { 'Sec-Fetch-Site': 'same-origin' }))).toBeNull();
    expect(csrfProblem(req('POST', { 'Sec-Fetch-Site': 'none' }))).toBeNull();
    // No browser headers at all: a script with its own credentials, not a forged browser request.
    expect(csrfProblem(req('POST'))).toBeNull();
  });

  it('refuses writes from other origins, other ports and opaque origins', () => {
    expect(csrfProblem(req('POST', { Origin: 'https://evil.example' }))).toContain('evil.example');
    expect(csrfProblem(req('POST', { Origin: 'https://cairn.example.com:8443' }))).not.toBeNull();
    expect(csrfProblem(req('POST', { Origin: 'http://cairn.example.com' }))).not.toBeNull();
    expect(csrfProblem(req('PATCH', { Origin: 'null' }))).toContain('opaque');
    expect(csrfProblem(req('POST', { 'Sec-Fetch-Site': 'cross-site' }))).toContain('cross-site');
    expect(csrfProblem(req('POST', { 'Sec-Fetch-Site': 'same-site' }))).not.toBeNull();
    // Origin decides when both are present.
    expect(csrfProblem(req('POST', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'same-origin' }))).not.toBeNull();
  });

  it('guards the app and the public link pages, not the docs', () => {
    expect(isProtectedPath('/app/login')).toBe(true);
    expect(isProtectedPath('/app')).toBe(true);
    expect(isProtectedPath('/s/abc')).toBe(true);
    expect(isProtectedPath('/docs-insights')).toBe(false);
    // The identity provider posts the SAML response from its own origin (D57); only that exact path.
    expect(isProtectedPath('/app/sso/saml/acs')).toBe(false);
    expect(isProtectedPath('/app/sso/saml/acs/')).toBe(true);
    expect(isProtectedPath('/app/sso/oidc/callback')).toBe(true);
    expect(isProtectedPath('/application')).toBe(false);
  });
});
