import { dashboards } from '@cairn/db';
import type { SecurityCaseFactory } from './cases.ts';
import { db, jsonApi } from '../fixtures.ts';

/**
 * The suite restricts keys to "<id>_other", and keys may only name dashboards that exist: this
 * sibling lets such a key be made (it is never the resource a case calls).
 */
export async function restrictionSibling(organizationId: string, dashboardId: string) {
  await db()
    .insert(dashboards)
    .values({ id: `${dashboardId}_other`, organization_id: organizationId, name: `Sibling of ${dashboardId}` })
    .onConflictDoNothing();
  return { restrictedTo: { type: 'dashboards' as const, id: dashboardId } };
}

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const dash = org.sampleDashboard.id;
  const rels = {
    dashboard: { data: { type: 'dashboards', id: dash } },
    datasource: { data: { type: 'datasources', id: org.sampleDatasource.id } },
  };
  const make = async (name: string) =>
    (await jsonApi('/reports', 'POST', { type: 'reports', attributes: { name, sql_query: 'SELECT 1 AS one' }, relationships: rels }, key)).json.data
      .id as string;
  const [id, doomed] = [await make('Security report'), await make('Security report to delete')];
  const on = await restrictionSibling(org.organization.id, dash);
  return [
    { method: 'GET', path: '/reports', permissions: ['view_dashboards'], ownsResource: false },
    {
      method: 'POST',
      path: '/reports',
      jsonapi: true,
      body: { data: { type: 'reports', attributes: { name: 'x', sql_query: 'SELECT 1' }, relationships: rels } },
      permissions: ['manage_dashboards'],
      ownsResource: false,
    },
    { method: 'GET', path: `/reports/${id}`, permissions: ['view_dashboards'], ...on },
    {
      method: 'PATCH',
      path: `/reports/${id}`,
      jsonapi: true,
      body: { data: { type: 'reports', id, attributes: { description: 'changed' } } },
      permissions: ['manage_dashboards'],
      ...on,
    },
    { method: 'POST', path: `/reports/${id}/duplicate`, permissions: ['manage_dashboards'], ...on },
    { method: 'POST', path: `/reports/${id}/data`, body: {}, permissions: ['view_dashboards'], ...on },
    { method: 'POST', path: `/reports/${id}/refresh`, permissions: ['view_dashboards'], ...on },
    { method: 'DELETE', path: `/reports/${doomed}`, permissions: ['manage_dashboards'], ...on },
  ];
};
