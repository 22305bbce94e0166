import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';
import { restrictionSibling } from './reports.ts';

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const dash = org.sampleDashboard.id;
  const attributes = { name: 'Security schedule', emails: 'sec@example.com', attach_as: 'pdf', schedule: 'daily;08:00' };
  const relationships = { dashboard: { data: { type: 'dashboards', id: dash } } };
  const make = async () =>
    (await jsonApi('/dashboard_schedules', 'POST', { type: 'dashboard_schedules', attributes, relationships }, key)).json.data.id as string;
  const [id, doomed] = [await make(), await make()];
  const on = await restrictionSibling(org.organization.id, dash);
  return [
    { method: 'GET', path: '/dashboard_schedules', permissions: ['view_schedules'], ownsResource: false },
    {
      method: 'POST',
      path: '/dashboard_schedules',
      jsonapi: true,
      body: { data: { type: 'dashboard_schedules', attributes, relationships } },
      permissions: ['manage_schedules'],
      ownsResource: false,
    },
    { method: 'GET', path: `/dashboard_schedules/${id}`, permissions: ['view_schedules'], ...on },
    {
      method: 'PATCH',
      path: `/dashboard_schedules/${id}`,
      jsonapi: true,
      body: { data: { type: 'dashboard_schedules', id, attributes: { subject_text: 'Changed' } } },
      permissions: ['manage_schedules'],
      ...on,
    },
    { method: 'POST', path: `/dashboard_schedules/${id}/send_now`, permissions: ['manage_schedules'], ...on },
    { method: 'DELETE', path: `/dashboard_schedules/${doomed}`, permissions: ['manage_schedules'], ...on },
  ];
};
