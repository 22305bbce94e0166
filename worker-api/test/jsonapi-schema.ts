// The official JSON:API 1.0 response schema, validated with a small structural checker that runs
// inside workerd (ajv compiles with new Function, which workerd forbids). The end-to-end suite
// validates real HTTP responses against the same schema file with ajv.
import { expect } from 'vitest';

export function expectJsonApiDocument(doc: any) {
  expect(doc).toBeTypeOf('object');
  const top = Object.keys(doc);
  expect(top.some((k) => ['data', 'errors', 'meta'].includes(k))).toBe(true);
  expect('data' in doc && 'errors' in doc).toBe(false);
  for (const k of top) expect(['data', 'errors', 'meta', 'jsonapi', 'links', 'included']).toContain(k);
  if ('errors' in doc) {
    expect(Array.isArray(doc.errors)).toBe(true);
    for (const e of doc.errors) {
      expect(typeof e.status).toBe('string');
      expect(typeof e.code).toBe('string');
      expect(typeof e.detail).toBe('string');
      for (const k of Object.keys(e)) expect(['id', 'links', 'status', 'code', 'title', 'detail', 'source', 'meta']).toContain(k);
    }
    return;
  }
  const resources = [...(Array.isArray(doc.data) ? doc.data : doc.data ? [doc.data] : []), ...(doc.included ?? [])];
  const seen = new Set<string>();
  for (const r of resources) {
    expect(typeof r.type).toBe('string');
    expect(typeof r.id).toBe('string');
    for (const k of Object.keys(r)) expect(['type', 'id', 'attributes', 'relationships', 'links', 'meta']).toContain(k);
    for (const a of Object.keys(r.attributes ?? {})) expect(['relationships', 'links', 'id', 'type']).not.toContain(a);
    for (const rel of Object.values<any>(r.relationships ?? {})) {
      expect(rel).toHaveProperty('data');
    }
    const ident = `${r.type}/${r.id}`;
    expect(seen.has(ident), `duplicate resource ${ident}`).toBe(false);
    seen.add(ident);
  }
}
