/**
 * The per-dashboard colour map (issue 15): `series_colors` (read-only) holds the colour ordinal of every
 * series value the dashboard's charts showed, given in order of first sight by
 * POST /dashboards/{id}/series_colors, so a value keeps its colour on every tile of that dashboard.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { dashboards } from '@cairn/db';
import { call, db, jsonApi, makeKey, makeOrg, makeRawKey, makeUser, only } from '../../../test/fixtures.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let board: string;
const assign = (values: unknown, as: { key?: string; session?: string } = { key }, id = board) =>
  call(`/dashboards/${id}/series_colors`, { ...as, method: 'POST', body: { values } });

beforeAll(async () => {
  org = await makeOrg('series-colors');
  key = await makeKey(org.organization.id);
  const res = await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Colours' } }, key);
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  board = res.json.data.id;
});

describe('POST /dashboards/{id}/series_colors', () => {
  it('gives new values the next ordinals in order of first sight; known values keep theirs', async () => {
    const read = await call(`/dashboards/${board}`, { key });
    expect(read.json.data.attributes.series_colors).toEqual({});
    const before = read.json.data.attributes.updated_at;
    const first = await assign(['France', 'Germany']);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json.series_colors).toEqual({ France: 0, Germany: 1 });
    // Another tile shows Germany first and a new value: Germany keeps 1, Spain takes 2.
    const second = await assign(['Germany', 'Spain', 'Spain', 'France']);
    expect(second.json.series_colors).toEqual({ France: 0, Germany: 1, Spain: 2 });
    const after = await call(`/dashboards/${board}`, { key });
    expect(after.json.data.attributes.series_colors).toEqual({ France: 0, Germany: 1, Spain: 2 });
    expect(after.json.data.attributes.updated_at).toBe(before);
  });

  it('parallel callers never give two values one ordinal', async () => {
    const values = Array.from({ length: 12 }, (_, i) => `v${i}`);
    await Promise.all(values.map((v) => assign([v, 'France'])));
    const map = (await call(`/dashboards/${board}`, { key })).json.data.attributes.series_colors as Record<string, number>;
    const ordinals = Object.values(map);
    expect(new Set(ordinals).size).toBe(ordinals.length);
    expect(Math.max(...ordinals)).toBe(ordinals.length - 1);
    expect(map.France).toBe(0);
  });

  it('series_colors is read-only on create and update', async () => {
    const res = await jsonApi(`/dashboards/${board}`, 'PATCH', { type: 'dashboards', id: board, attributes: { series_colors: { x: 5 } } }, key);
    expect(res.status).toBe(422);
    expect(res.json.errors[0]).toMatchObject({ code: 'read_only_attribute', source: { pointer: '/data/attributes/series_colors' } });
  });

  it('refuses bad bodies with JSON:API errors', async () => {
    for (const bad of [[], 'France', [1, 2], ['x'.repeat(201)], Array.from({ length: 501 }, (_, i) => `${i}`)]) {
      const res = await assign(bad);
      expect(res.status, JSON.stringify(bad).slice(0, 40)).toBe(422);
      expect(res.json.errors[0].source.pointer).toMatch(/^\/values/);
    }
    const extra = await call(`/dashboards/${board}/series_colors`, { key, method: 'POST', body: { values: ['a'], colour: 'red' } });
    expect(extra.status).toBe(422);
    expect((await call(`/dashboards/${board}/series_colors`, { key, method: 'POST', rawBody: '{"values": [' })).status).toBe(400);
  });

  it('stops at 2,000 values: later new values get no colour', async () => {
    const full = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]));
    await db().update(dashboards).set({ series_colors: full }).where(eq(dashboards.id, board));
    const res = await assign(['k5', 'brand new']);
    expect(res.status).toBe(200);
    expect(res.json.series_colors.k5).toBe(5);
    expect(res.json.series_colors['brand new']).toBeUndefined();
    await db().update(dashboards).set({ series_colors: {} }).where(eq(dashboards.id, board));
  });

  it('View Dashboards is enough (viewers of a shared dashboard, view-only keys); others get 403 or 404', async () => {
    await call(`/dashboards/${board}/share`, { key, method: 'POST', body: { share_mode: 'all_users' } });
    const viewer = await makeUser(org.organization.id, 'viewer');
    expect((await assign(['Viewer value'], { session: viewer.session })).status).toBe(200);
    expect((await assign(['Key value'], { key: await makeKey(org.organization.id, only('view_dashboards')) })).status).toBe(200);
    const elsewhere = await makeRawKey(org.organization.id, [{ permission: 'view_dashboards', resources: [{ type: 'dashboards', id: 'dsh_other' }] }]);
    // A dashboard outside the key's grant is not found (404 before 403, ARCHITECTURE D44).
    expect((await assign(['x'], { key: elsewhere })).status).toBe(404);
    expect((await assign(['x'], { key: await makeKey(org.organization.id, only('view_datasources')) })).status).toBe(403);
    const other = await makeOrg('series-colors-other');
    expect((await assign(['x'], { key: await makeKey(other.organization.id) })).status).toBe(404);
    expect((await assign(['x'], {})).status).toBe(401);
    const map = (await call(`/dashboards/${board}`, { key })).json.data.attributes.series_colors;
    expect(Object.keys(map)).not.toContain('x');
  });
});
