import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';
import { restrictionSibling } from './reports.ts';

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const dash = org.sampleDashboard.id;
  const make = async (variable_name: string) =>
    (
      await jsonApi(
        '/filters',
        'POST',
        {
          type: 'filters',
          attributes: { variable_name, control_type: 'input', value_type: 'TEXT' },
          relationships: { dashboards: { data: [{ type: 'dashboards', id: dash }] } },
        },
        key,
      )
    ).json.data.id as string;
  const [id, doomed] = [await make('security_filter'), await make('security_filter_doomed')];
  const dropdown = (
    await jsonApi(
      '/filters',
      'POST',
      {
        type: 'filters',
        attributes: { variable_name: 'security_dropdown', control_type: 'dropdown_multi_manual', value_type: 'TEXT', values: ['a'] },
        relationships: { dashboards: { data: [{ type: 'dashboards', id: dash }] } },
      },
      key,
    )
  ).json.data.id as string;
  // Filters on the sample dashboard only: a key restricted to another dashboard does not see them.
  const on = await restrictionSibling(org.organization.id, dash);
  return [
    { method: 'GET', path: '/filters', permissions: ['view_dashboards'], ownsResource: false },
    {
      method: 'POST',
      path: '/filters',
      jsonapi: true,
      body: { data: { type: 'filters', attributes: { variable_name: 'x', control_type: 'input', value_type: 'TEXT' } } },
      permissions: ['manage_dashboards'],
      ownsResource: false,
    },
    { method: 'GET', path: `/filters/${id}`, permissions: ['view_dashboards'], ...on },
    {
      method: 'PATCH',
      path: `/filters/${id}`,
      jsonapi: true,
      body: { data: { type: 'filters', id, attributes: { display_name: 'Changed' } } },
      permissions: ['manage_dashboards'],
      ...on,
    },
    { method: 'POST', path: `/filters/${dropdown}/options`, body: {}, permissions: ['view_dashboards'], ...on },
    { method: 'POST', path: `/filters/${dropdown}/refresh`, body: {}, permissions: ['view_dashboards'], ...on },
    { method: 'DELETE', path: `/filters/${doomed}`, permissions: ['manage_dashboards'], ...on },
  ];
};
