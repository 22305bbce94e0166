import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { dashboards } from '@cairn/db';
import type { Env } from '../../src/env.ts';
import { thumbnailObjectKey } from '../../src/resources/dashboards/thumbnail-url.ts';
import type { SecurityCaseFactory } from './cases.ts';
import { call, db, jsonApi } from '../fixtures.ts';

/**
 * The suite restricts keys to "<id>_other", and keys may only name dashboards that exist: these
 * siblings exist so that such keys can be made (they are never the resource a case calls).
 */
export async function addRestrictionSiblings(organizationId: string, ids: string[]) {
  await db()
    .insert(dashboards)
    .values(ids.map((id) => ({ id: `${id}_other`, organization_id: organizationId, name: `Sibling of ${id}` })))
    .onConflictDoNothing();
}

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const make = async (name: string) => (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name } }, key)).json.data.id as string;
  const [id, lockable, doomed] = await Promise.all([make('Security dashboard'), make('Security lock'), make('Security delete')]);
  await addRestrictionSiblings(org.organization.id, [id, lockable, doomed]);
  // A thumbnail to fetch (the cron draws them; here the image is put in the bucket directly).
  await (env as unknown as Env).RESULTS.put(thumbnailObjectKey(id), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  await db()
    .update(dashboards)
    .set({ thumbnail_image_url: thumbnailObjectKey(id) })
    .where(eq(dashboards.id, id));
  const backup = (await call(`/dashboards/${org.sampleDashboard.id}/backup`, { key, method: 'POST' })).json;
  const on = (d: string) => ({ restrictedTo: { type: 'dashboards' as const, id: d } });
  // Creating needs Manage Dashboards on the new dashboard: a key restricted to other dashboards is refused.
  const creating = { restrictedTo: { type: 'dashboards' as const, id }, ownsResource: false };
  return [
    { method: 'GET', path: '/dashboards', permissions: ['view_dashboards'], ownsResource: false },
    {
      method: 'POST',
      path: '/dashboards',
      jsonapi: true,
      body: { data: { type: 'dashboards', attributes: { name: 'x' } } },
      permissions: ['manage_dashboards'],
      ...creating,
    },
    { method: 'POST', path: '/dashboards/restore', body: backup, permissions: ['manage_dashboards'], ...creating },
    { method: 'GET', path: `/dashboards/${id}`, permissions: ['view_dashboards'], ...on(id) },
    {
      method: 'PATCH',
      path: `/dashboards/${id}`,
      jsonapi: true,
      body: { data: { type: 'dashboards', id, attributes: { description: 'changed' } } },
      permissions: ['manage_dashboards'],
      ...on(id),
    },
    { method: 'PUT', path: `/dashboards/${id}/layout`, body: { layout: [] }, permissions: ['manage_dashboards'], ...on(id) },
    {
      method: 'POST',
      path: `/dashboards/${id}/share`,
      body: { share_mode: 'custom', user_group_ids: ['all_analysts'] },
      permissions: ['manage_dashboards'],
      ...on(id),
    },
    { method: 'GET', path: `/dashboards/${id}/thumbnail`, permissions: ['view_dashboards'], ...on(id) },
    { method: 'POST', path: `/dashboards/${id}/series_colors`, body: { values: ['a'] }, permissions: ['view_dashboards'], ...on(id) },
    { method: 'POST', path: `/dashboards/${id}/status`, body: {}, permissions: ['view_dashboards'], ...on(id) },
    { method: 'POST', path: `/dashboards/${id}/refresh`, permissions: ['view_dashboards'], ...on(id) },
    { method: 'POST', path: `/dashboards/${id}/duplicate`, permissions: ['manage_dashboards'], ...on(id) },
    { method: 'POST', path: `/dashboards/${id}/backup`, permissions: ['manage_dashboards'], ...on(id) },
    { method: 'POST', path: `/dashboards/${lockable}/lock`, permissions: ['manage_dashboards'], ...on(lockable) },
    { method: 'DELETE', path: `/dashboards/${lockable}/lock`, permissions: ['manage_dashboards'], ...on(lockable) },
    { method: 'DELETE', path: `/dashboards/${doomed}`, permissions: ['manage_dashboards'], ...on(doomed) },
  ];
};
