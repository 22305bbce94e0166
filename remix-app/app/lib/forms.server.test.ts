import { describe, expect, it } from 'vitest';
import { readForm } from './forms.server';

describe('readForm', () => {
  it('reads a form post', async () => {
    const form = await readForm(new Request('http://app/x', { method: 'POST', body: new URLSearchParams({ intent: 'create', name: 'A' }) }));
    expect(form.get('intent')).toBe('create');
    expect(form.get('name')).toBe('A');
  });

  it('answers 400 with a message for a body that is not a form', async () => {
    const json = new Request('http://app/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"intent":"create"}' });
    const thrown = await readForm(json).then(
      () => null,
      (e: unknown) => e as { init?: { status?: number }; data?: { message?: string } },
    );
    expect(thrown?.init?.status).toBe(400);
    expect(thrown?.data?.message).toMatch(/takes a form/);
  });
});
