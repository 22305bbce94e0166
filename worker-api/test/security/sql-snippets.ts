import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ key }) => {
  const make = async (name: string) =>
    (await jsonApi('/sql_snippets', 'POST', { type: 'sql_snippets', attributes: { name, text: 'TRUE' } }, key)).json.data.id as string;
  const [id, doomed] = [await make('security_snippet'), await make('security_snippet_doomed')];
  return [
    { method: 'GET', path: '/sql_snippets', permissions: ['view_dashboards'], ownsResource: false },
    {
      method: 'POST',
      path: '/sql_snippets',
      jsonapi: true,
      body: { data: { type: 'sql_snippets', attributes: { name: 'security_new', text: '1' } } },
      permissions: ['manage_dashboards'],
      ownsResource: false,
    },
    { method: 'GET', path: `/sql_snippets/${id}`, permissions: ['view_dashboards'] },
    {
      method: 'PATCH',
      path: `/sql_snippets/${id}`,
      jsonapi: true,
      body: { data: { type: 'sql_snippets', id, attributes: { description: 'changed' } } },
      permissions: ['manage_dashboards'],
    },
    { method: 'DELETE', path: `/sql_snippets/${doomed}`, permissions: ['manage_dashboards'] },
  ];
};
