/**
 * `/dashboard_groups/sort` as the reference documents it: GET with a JSON body. Node's fetch (like
 * workerd's) refuses a body on GET, so this test speaks HTTP through node:http; the POST form is covered
 * by worker-api/src/resources/dashboard-groups/dashboard-groups.test.ts.
 */
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { apiFetch, getStack } from './harness.ts';

const created: string[] = [];

/** A request with any method and a JSON body, over plain HTTP. */
function rawRequest(method: string, path: string, body: unknown, key: string | null = getStack().api_key) {
  const url = new URL(path, getStack().regions.eu.api);
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.length),
          ...(key ? { authorization: `Api ${key}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const order = async () =>
  ((await apiFetch('/dashboard_groups?page[size]=200')).body.data as { id: string }[]).map((g) => g.id).filter((id) => created.includes(id));

afterAll(async () => {
  for (const id of created) await apiFetch(`/dashboard_groups/${id}`, { method: 'DELETE' }).catch(() => undefined);
});

describe('GET /dashboard_groups/sort with a body', () => {
  it('puts the listed groups first in that order; the others follow', async () => {
    for (const name of ['Sort A', 'Sort B', 'Sort C']) {
      const res = await apiFetch('/dashboard_groups', {
        body: { data: { type: 'dashboard_groups', attributes: { name: `${name} ${Date.now()}` } } },
        headers: { 'content-type': 'application/vnd.api+json' },
      });
      expect(res.status, res.text).toBe(201);
      created.push(res.body.data.id);
    }
    const [a, b, c] = created as [string, string, string];
    const sorted = await rawRequest('GET', '/dashboard_groups/sort', { dashboard_group_ids: [c, a] });
    expect(sorted.status, sorted.text).toBe(204);
    expect(sorted.text).toBe('');
    expect(await order()).toEqual([c, a, b]);

    const again = await rawRequest('GET', '/dashboard_groups/sort', { dashboard_group_ids: [b] });
    expect(again.status).toBe(204);
    expect(await order()).toEqual([b, c, a]);
  });

  it('refuses what POST refuses: unknown ids, repeats, a missing body member, no key', async () => {
    const unknown = await rawRequest('GET', '/dashboard_groups/sort', { dashboard_group_ids: ['dgr_nope'] });
    expect(unknown.status).toBe(422);
    expect(JSON.parse(unknown.text).errors[0].source.pointer).toBe('/dashboard_group_ids/0');
    const id = created[0]!;
    expect((await rawRequest('GET', '/dashboard_groups/sort', { dashboard_group_ids: [id, id] })).status).toBe(422);
    const missing = await rawRequest('GET', '/dashboard_groups/sort', {});
    expect(missing.status).toBe(422);
    expect(JSON.parse(missing.text).errors[0].source.pointer).toBe('/dashboard_group_ids');
    expect((await rawRequest('GET', '/dashboard_groups/sort', { dashboard_group_ids: [id] }, null)).status).toBe(401);
  });

  it('a method the path does not have is a 405 naming the ones it has', async () => {
    const res = await rawRequest('PUT', '/dashboard_groups/sort', { dashboard_group_ids: [] });
    expect(res.status).toBe(405);
    expect(JSON.parse(res.text).errors[0].code).toBe('method_not_allowed');
  });
});
