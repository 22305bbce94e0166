import type { SecurityCaseFactory } from './cases.ts';
import { addRestrictionSiblings } from './dashboards.ts';
import { jsonApi } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const dashboard = org.sampleDashboard.id;
  const make = async (name: string) =>
    (
      await jsonApi(
        '/dashboard_sharing_links',
        'POST',
        {
          type: 'dashboard_sharing_links',
          attributes: { name },
          relationships: { dashboard: { data: { type: 'dashboards', id: dashboard } } },
        },
        key,
      )
    ).json.data.id as string;
  const [id, doomed] = await Promise.all([make('Security link'), make('Security link to delete')]);
  await addRestrictionSiblings(org.organization.id, [dashboard]);
  const restrictedTo = { type: 'dashboards' as const, id: dashboard };
  return [
    { method: 'GET', path: '/dashboard_sharing_links', permissions: ['manage_dashboards'], ownsResource: false },
    {
      method: 'POST',
      path: '/dashboard_sharing_links',
      jsonapi: true,
      permissions: ['manage_dashboards'],
      restrictedTo,
      ownsResource: false,
      body: {
        data: { type: 'dashboard_sharing_links', attributes: { name: 'x' }, relationships: { dashboard: { data: { type: 'dashboards', id: dashboard } } } },
      },
    },
    { method: 'GET', path: `/dashboard_sharing_links/${id}`, permissions: ['manage_dashboards'], restrictedTo },
    {
      method: 'PATCH',
      path: `/dashboard_sharing_links/${id}`,
      jsonapi: true,
      permissions: ['manage_dashboards'],
      restrictedTo,
      body: { data: { type: 'dashboard_sharing_links', id, attributes: { name: 'Renamed' } } },
    },
    { method: 'DELETE', path: `/dashboard_sharing_links/${doomed}`, permissions: ['manage_dashboards'], restrictedTo },
  ];
};
