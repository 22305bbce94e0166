import { describe, expect, it } from 'vitest';
import { accountAnswer, browserOf, fieldProblem } from './account';

describe('accountAnswer', () => {
  it('says the message when the call worked', () => {
    expect(accountAnswer('name', { status: 200, body: {} }, 'Saved.')).toEqual({ ok: true, intent: 'name', message: 'Saved.' });
    expect(accountAnswer('password', { status: 204, body: null }, 'Changed.')).toMatchObject({ ok: true });
  });

  it('puts the API errors under their fields', () => {
    const body = {
      errors: [
        { detail: 'current_password: is not your current password.', source: { pointer: '/current_password' } },
        { detail: 'Too many.', code: 'rate_limited' },
      ],
    };
    expect(accountAnswer('password', { status: 422, body }, 'x')).toEqual({
      ok: false,
      intent: 'password',
      errors: { current_password: ['is not your current password.'], _form: ['Too many.'] },
    });
  });

  it('has a form-level message when the API said nothing usable', () => {
    expect(accountAnswer('sessions', { status: 503, body: null }, 'x')).toEqual({
      ok: false,
      intent: 'sessions',
      errors: { _form: ['The request failed with status 503.'] },
    });
    expect(fieldProblem('password', 'new_password_again', 'Differs.')).toEqual({ ok: false, intent: 'password', errors: { new_password_again: ['Differs.'] } });
  });
});

describe('browserOf', () => {
  it('names common browsers and systems', () => {
    expect(browserOf('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36')).toBe('Chrome on Linux');
    expect(browserOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox on macOS');
    expect(browserOf('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36 Edg/120.0')).toBe('Edge on Windows');
    expect(browserOf('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1')).toBe(
      'Safari on iOS',
    );
    expect(browserOf('curl/8.0')).toBe('Unknown browser');
    expect(browserOf(null)).toBe('Unknown browser');
  });
});
