import type { SecurityCaseFactory } from './cases.ts';

/** The calls that reach a datasource (through the engine): its actions and starting an ad hoc execution. */
export const securityCases: SecurityCaseFactory = async ({ org }) => {
  const ds = org.sampleDatasource.id;
  const restrictedTo = { type: 'datasources' as const, id: ds };
  return [
    { method: 'POST', path: `/datasources/${ds}/test_connection`, permissions: ['manage_datasources'], restrictedTo },
    { method: 'POST', path: `/datasources/${ds}/refresh`, permissions: ['manage_datasources'], restrictedTo },
    { method: 'GET', path: `/datasources/${ds}/schema`, permissions: ['view_datasources'], restrictedTo },
    {
      method: 'POST',
      path: '/datasources/test_connection',
      jsonapi: true,
      body: { data: { type: 'datasources', attributes: { database_type: 'postgres', connection_mode: 'direct', host: '127.0.0.1', port: 1 } } },
      permissions: ['manage_datasources'],
      ownsResource: false,
    },
    {
      method: 'POST',
      path: `/datasources/${ds}/executions`,
      body: { sql_query: 'select 1 as one' },
      permissions: ['manage_datasources', 'manage_dashboards', 'manage_alerts'],
      restrictedTo,
    },
  ];
};
