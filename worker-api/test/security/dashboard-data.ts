import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';
import { addRestrictionSiblings } from './dashboards.ts';

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  // An empty dashboard: the permitted call answers 204 without running queries.
  const id = (await jsonApi('/dashboards', 'POST', { type: 'dashboards', attributes: { name: 'Security data' } }, key)).json.data.id as string;
  await addRestrictionSiblings(org.organization.id, [id]);
  return [
    {
      method: 'POST',
      path: `/dashboards/${id}/data`,
      body: { data_format: 'csv_zip' },
      permissions: ['view_dashboards'],
      restrictedTo: { type: 'dashboards', id },
    },
  ];
};
