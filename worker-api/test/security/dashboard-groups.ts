import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ key }) => {
  const made = await jsonApi('/dashboard_groups', 'POST', { type: 'dashboard_groups', attributes: { name: 'Security group' } }, key);
  const id = made.json.data.id as string;
  const body = { data: { type: 'dashboard_groups', id, attributes: { name: 'Renamed' } } };
  return [
    { method: 'GET', path: '/dashboard_groups', permissions: ['view_dashboards'], ownsResource: false },
    {
      method: 'POST',
      path: '/dashboard_groups',
      jsonapi: true,
      body: { data: { type: 'dashboard_groups', attributes: { name: 'x' } } },
      permissions: ['manage_dashboards'],
      ownsResource: false,
    },
    { method: 'GET', path: `/dashboard_groups/${id}`, permissions: ['view_dashboards'] },
    { method: 'PATCH', path: `/dashboard_groups/${id}`, jsonapi: true, body, permissions: ['manage_dashboards'] },
    { method: 'POST', path: '/dashboard_groups/sort', body: { dashboard_group_ids: [id] }, permissions: ['manage_dashboards'], ownsResource: false },
    { method: 'DELETE', path: `/dashboard_groups/${id}`, permissions: ['manage_dashboards'] },
  ];
};
