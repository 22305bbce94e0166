import { describe, expect, it } from 'vitest';
import { heldUntilEnd } from '../src/engine/run.ts';

const ds = (over: Partial<{ is_sample: boolean; host: string | null; port: number | null }> = {}) => ({ is_sample: false, host: 'db.example.com', port: 5432, ...over });

describe('heldUntilEnd: results held in memory while a query runs on the embedded database', () => {
  it('never on a real PostgreSQL (EMBEDDED_DB unset or blank)', () => {
    expect(heldUntilEnd({}, ds({ is_sample: true }))).toBe(false);
    expect(heldUntilEnd({ EMBEDDED_DB: ' ' }, ds({ is_sample: true }))).toBe(false);
  });

  it('for the sample datasource, which reads Cairn\'s own database', () => {
    expect(heldUntilEnd({ EMBEDDED_DB: '127.0.0.1:5488' }, ds({ is_sample: true, host: null, port: null }))).toBe(true);
  });

  it('for a datasource that points at the embedded database itself, under any loopback name', () => {
    for (const host of ['127.0.0.1', 'localhost', '127.0.0.2', '::1']) {
      expect(heldUntilEnd({ EMBEDDED_DB: '127.0.0.1:5488' }, ds({ host, port: 5488 }))).toBe(true);
    }
  });

  it('not for other databases, even on this machine', () => {
    expect(heldUntilEnd({ EMBEDDED_DB: '127.0.0.1:5488' }, ds({ host: '127.0.0.1', port: 5432 }))).toBe(false);
    expect(heldUntilEnd({ EMBEDDED_DB: '127.0.0.1:5488' }, ds({ host: 'db.example.com', port: 5488 }))).toBe(false);
  });
});
