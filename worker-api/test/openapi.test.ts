import { describe, expect, it } from 'vitest';
import { ID_PREFIXES } from '@cairn/core';
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

describe('GET /openapi.json as clients read it', () => {
  /** Every `required` list in a schema whose property has a default, and every reference to a component holding a default. */
  function findings(node: unknown, at: string, out: string[], schemas: Record<string, unknown>): string[] {
    if (Array.isArray(node)) node.forEach((n, i) => findings(n, `${at}/${i}`, out, schemas));
    else if (node && typeof node === 'object') {
      const o = node as Record<string, any>;
      if (typeof o.$ref === 'string' && JSON.stringify(schemas[o.$ref.split('/').pop() ?? '']).includes('"default":')) out.push(`${at}: $ref ${o.$ref}`);
      if (o.properties && Array.isArray(o.required)) {
        for (const name of o.required) if (o.properties[name] && 'default' in o.properties[name]) out.push(`${at}: ${name} has a default but is required`);
      }
      for (const [k, v] of Object.entries(o)) findings(v, `${at}/${k}`, out, schemas);
    }
    return out;
  }

  it('request bodies inline the components that hold defaults, and a member with a default is optional there', async () => {
    const doc = (await call('/openapi.json')).json;
    const out: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [media, m] of Object.entries<any>(op.requestBody?.content ?? {}))
          findings(m.schema, `${method} ${path} ${media}`, out, doc.components.schemas);
      }
    }
    expect(out).toEqual([]);
    const status = doc.paths['/dashboards/{id}/status'].post.requestBody.content['application/json'].schema;
    expect(status.properties.refresh_data).toMatchObject({ type: 'boolean', default: false });
    expect(status.required ?? []).not.toContain('refresh_data');
    const download = doc.paths['/dashboards/{id}/data'].post.requestBody.content['application/json'].schema;
    expect(download.properties.csv_column_separator.default).toBe('comma');
    expect(download.required ?? []).toEqual([]);
    // The named schema stays as it was for the reference's Schemas section.
    expect(doc.components.schemas.DashboardStatusRequest.properties.refresh_data.default).toBe(false);
  });

  it("each {id} example is an id of the path's kind", async () => {
    const doc = (await call('/openapi.json')).json;
    const example = (path: string, method = 'get') => doc.paths[path][method].parameters.find((p: any) => p.name === 'id').schema.example;
    expect(example('/reports/{id}')).toMatch(/^rep_/);
    expect(example('/executions/{id}')).toMatch(/^exe_/);
    expect(example('/dashboards/{id}')).toMatch(/^dsh_/);
    expect(example('/public/links/{token}/reports/{id}/data', 'post')).toMatch(/^rep_/);
    expect(example('/users/invite/{id}', 'post')).toMatch(/^usr_/);
    const byPrefix = Object.fromEntries(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [`${kind}s`, prefix]));
    const wrong: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const parts = path.split('/');
      const prefix = byPrefix[parts[parts.indexOf('{id}') - 1] ?? ''] ?? byPrefix[parts[1] ?? ''];
      for (const op of Object.values<any>(item)) {
        const ex = op.parameters?.find((p: any) => p.in === 'path' && p.name === 'id')?.schema?.example;
        if (prefix && typeof ex === 'string' && ex.includes('_') && !ex.startsWith(`${prefix}_`) && !ex.startsWith('all_')) wrong.push(`${path}: ${ex}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('calls that take no API key describe their errors without one', async () => {
    const doc = (await call('/openapi.json')).json;
    const open = Object.values<any>(doc.paths)
      .flatMap((item) => Object.values<any>(item))
      .filter((op) => Array.isArray(op.security) && op.security.length === 0);
    expect(open.length).toBeGreaterThanOrEqual(6);
    for (const op of open) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) >= 400) expect(r.description, `${op.summary} ${status}`).not.toMatch(/API key|The key/);
      }
    }
  });

  it('selected_values names both forms of a range value', async () => {
    const doc = (await call('/openapi.json')).json;
    const values = doc.components.schemas.InputParameters.properties.filters.items.properties.selected_values;
    expect(values.items.type).toEqual(['string', 'number', 'boolean', 'null']);
    expect(values.description).toContain('"start~end"');
    expect(values.description).toContain('[start, end]');
    expect(values.examples).toContainEqual(['2025-01-01~2025-01-31']);
    expect(doc.components.schemas.InputParameters.properties.timerange.description).toContain('start~end');
  });
});
