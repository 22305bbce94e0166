import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ key }) => {
  const made = await jsonApi('/datasource_agents', 'POST', { type: 'datasource_agents', attributes: { name: 'Security agent' } }, key);
  const id = made.json.data.id as string;
  return [
    { method: 'GET', path: '/datasource_agents', permissions: ['view_datasources'], ownsResource: false },
    {
      method: 'POST',
      path: '/datasource_agents',
      jsonapi: true,
      body: { data: { type: 'datasource_agents', attributes: { name: 'x' } } },
      permissions: ['manage_datasources'],
      ownsResource: false,
    },
    { method: 'GET', path: `/datasource_agents/${id}`, permissions: ['view_datasources'] },
    {
      method: 'PATCH',
      path: `/datasource_agents/${id}`,
      jsonapi: true,
      body: { data: { type: 'datasource_agents', id, attributes: { enabled: false } } },
      permissions: ['manage_datasources'],
    },
    { method: 'DELETE', path: `/datasource_agents/${id}`, permissions: ['manage_datasources'] },
  ];
};
