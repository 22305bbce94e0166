import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';

/** The signed-in side of the public-links module: a link's sharing secret. The public calls take no key. */
export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const dashboard = org.sampleDashboard.id;
  const res = await jsonApi(
    '/dashboard_sharing_links',
    'POST',
    {
      type: 'dashboard_sharing_links',
      attributes: { name: 'Secret link', sharing_secret_required: true },
      relationships: { dashboard: { data: { type: 'dashboards', id: dashboard } } },
    },
    key,
  );
  const id = res.json.data.id as string;
  const restrictedTo = { type: 'dashboards' as const, id: dashboard };
  return [
    { method: 'GET', path: `/dashboard_sharing_links/${id}/sharing_secret`, permissions: ['manage_dashboards'], restrictedTo },
    { method: 'POST', path: `/dashboard_sharing_links/${id}/sharing_secret`, permissions: ['manage_dashboards'], restrictedTo },
  ];
};
