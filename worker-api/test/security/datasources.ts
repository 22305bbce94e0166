import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';

const postgres = (name: string) => ({
  type: 'datasources',
  attributes: { name, database_type: 'postgres', connection_mode: 'direct', host: 'db.example.test', username: 'reader', password: 'pw' },
});

export const securityCases: SecurityCaseFactory = async ({ key }) => {
  const made = await jsonApi('/datasources', 'POST', postgres('Security datasource'), key);
  const id = made.json.data.id as string;
  const restrictedTo = { type: 'datasources' as const, id };
  return [
    { method: 'GET', path: '/datasources', permissions: ['view_datasources'], ownsResource: false },
    {
      method: 'POST',
      path: '/datasources',
      jsonapi: true,
      body: { data: postgres('Created by the suite') },
      permissions: ['manage_datasources'],
      ownsResource: false,
    },
    { method: 'GET', path: `/datasources/${id}`, permissions: ['view_datasources'], restrictedTo },
    {
      method: 'PATCH',
      path: `/datasources/${id}`,
      jsonapi: true,
      body: { data: { type: 'datasources', id, attributes: { name: 'Renamed' } } },
      permissions: ['manage_datasources'],
      restrictedTo,
    },
    { method: 'DELETE', path: `/datasources/${id}`, permissions: ['manage_datasources'], restrictedTo },
  ];
};
