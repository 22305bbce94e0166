import { beforeAll, describe, expect, it } from 'vitest';
import { sqlAlertResults } from '@cairn/db';
import { newId } from '@cairn/core';
import { call, db, jsonApi, makeKey, makeOrg, makeUser, only } from '../../../test/fixtures.ts';
import { expectJsonApiDocument } from '../../../test/jsonapi-schema.ts';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

let org: CreateOrganizationResult;
let key: string;
let sample: string;

const rel = (id: string) => ({ datasource: { data: { type: 'datasources', id } } });
const alert = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = rel(sample)) => ({
  type: 'sql_alerts',
  attributes: {
    name: 'Low stock',
    sql_query: 'select count(*) from products where stock < 5',
    run_schedule: 'every',
    run_every: 60,
    trigger_condition: 'has_results',
    email_condition: 'triggered',
    ...attributes,
  },
  relationships,
});
async function create(data: unknown, k: string | { session: string } = key) {
  const res = await jsonApi('/sql_alerts', 'POST', data, k);
  expectJsonApiDocument(res.json);
  return res;
}

beforeAll(async () => {
  org = await makeOrg('alert-results');
  key = await makeKey(org.organization.id);
  sample = org.sampleDatasource.id;
});

describe('SQL alert results', () => {
  let id: string;
  beforeAll(async () => {
    id = (await create(alert({ name: 'With results' }))).json.data.id;
    const now = Date.now();
    const rows = Array.from({ length: 7 }, (_, i) => ({
      id: newId('sql_alert_result'),
      organization_id: org.organization.id,
      sql_alert_id: id,
      result_status: (['ok', 'alert_triggered', 'query_error'] as const)[i % 3]!,
      error_message: i % 3 === 2 ? 'relation "x" does not exist' : null,
      sql_query: `select ${i}`,
      sql_query_duration: 10 + i,
      created_at: new Date(now - i * 3_600_000),
    }));
    // Two results in the same instant: the cursor must still split them correctly.
    rows.push({ ...rows[3]!, id: newId('sql_alert_result'), sql_query: 'select 3b' });
    // Older than 30 days: never returned.
    rows.push({ ...rows[0]!, id: newId('sql_alert_result'), sql_query: 'select old', created_at: new Date(now - 31 * 86_400_000) });
    await db().insert(sqlAlertResults).values(rows);
  });

  it('returns results of the last 30 days newest first, paging with a cursor', async () => {
    const first = await call(`/sql_alerts/${id}/results?limit=3`, { key });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('application/json');
    expect(first.json.count).toBe(3);
    expect(first.json.items).toHaveLength(3);
    expect(typeof first.json.cursor).toBe('string');
    const seen = [...first.json.items];
    let cursor = first.json.cursor;
    while (cursor) {
      const next = await call(`/sql_alerts/${id}/results?limit=3&cursor=${encodeURIComponent(cursor)}`, { key });
      expect(next.status).toBe(200);
      expect(next.json.count).toBe(next.json.items.length);
      seen.push(...next.json.items);
      cursor = next.json.cursor;
    }
    expect(seen).toHaveLength(8);
    expect(seen.map((r) => r.sql_query)).not.toContain('select old');
    expect(new Set(seen.map((r) => r.sql_query)).size).toBe(8);
    const times = seen.map((r) => r.created_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(seen[0]).toMatchObject({ result_status: 'ok', error_message: null, sql_query: 'select 0', sql_query_duration: 10 });
    expect(seen.find((r) => r.result_status === 'query_error').error_message).toContain('does not exist');
    const all = await call(`/sql_alerts/${id}/results`, { key });
    expect(all.json).toMatchObject({ count: 8, cursor: null });
  });

  it('shows sql_query and sql_query_duration only with Include SQL Details', async () => {
    const without = await makeKey(org.organization.id, only('view_alerts'));
    const res = await call(`/sql_alerts/${id}/results`, { key: without });
    expect(res.status).toBe(200);
    for (const item of res.json.items) {
      expect(Object.keys(item).sort()).toEqual(['created_at', 'error_message', 'result_status']);
    }
    const withDetails = await makeKey(org.organization.id, only('view_alerts', 'include_sql_details'));
    expect((await call(`/sql_alerts/${id}/results`, { key: withDetails })).json.items[0]).toHaveProperty('sql_query', 'select 0');
    const viewer = await makeUser(org.organization.id, 'viewer');
    const analyst = await makeUser(org.organization.id, 'analyst');
    expect((await call(`/sql_alerts/${id}/results`, { session: viewer.session })).json.items[0]).not.toHaveProperty('sql_query');
    expect((await call(`/sql_alerts/${id}/results`, { session: analyst.session })).json.items[0]).toHaveProperty('sql_query_duration', 10);
  });

  it('validates limit and cursor', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=ten', 'limit=2.5', 'cursor=garbage', `cursor=${btoa('["2020","x"]')}`]) {
      const res = await call(`/sql_alerts/${id}/results?${q}`, { key });
      expect(res.status, q).toBe(400);
      expectJsonApiDocument(res.json);
      expect(res.json.errors[0].code, q).toBe('invalid_query_parameter');
    }
    expect((await call(`/sql_alerts/${id}/results?limit=1000`, { key })).status).toBe(200);
    expect((await call(`/sql_alerts/alr_nope/results`, { key })).status).toBe(404);
  });
});
