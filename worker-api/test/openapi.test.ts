import { describe, expect, it } from 'vitest';
import { call } from './fixtures.ts';

describe('GET /openapi.json', () => {
  it('documents every operation with its permission and error answers', async () => {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('v2024-06-01');
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    const ops = [
      ['get', '/dashboards'],
      ['get', '/dashboards/{id}'],
      ['post', '/reports/{id}/data'],
    ] as const;
    for (const [method, path] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions']).toContain('view_dashboards');
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
    }
    expect(doc.components.schemas.Errors).toBeDefined();
    expect(doc.components.schemas.InputParameters.properties.aggregation.enum).toContain('week_sunday');
  });

  it('health needs no key', async () => {
    const res = await call('/health');
    expect(res.json).toMatchObject({ ok: true, service: 'cairn-api', region: 'eu', version: 'v2024-06-01' });
  });
});
