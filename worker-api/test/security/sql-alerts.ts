import type { SecurityCaseFactory } from './cases.ts';
import { jsonApi } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ org, key }) => {
  const datasource = { data: { type: 'datasources', id: org.sampleDatasource.id } };
  const alert = (name: string) => ({
    type: 'sql_alerts',
    attributes: { name, sql_query: 'select 1', run_schedule: 'every', run_every: 60, trigger_condition: 'has_results', email_condition: 'triggered' },
    relationships: { datasource },
  });
  const made = await jsonApi('/sql_alerts', 'POST', alert('Security alert'), key);
  const id = made.json.data.id as string;
  const restrictedTo = { type: 'sql_alerts' as const, id };
  const write = ['manage_alerts', 'manage_datasources'] as const;
  return [
    { method: 'GET', path: '/sql_alerts', permissions: ['view_alerts'], ownsResource: false },
    { method: 'POST', path: '/sql_alerts', jsonapi: true, body: { data: alert('Created by the suite') }, permissions: ['manage_alerts'], ownsResource: false },
    { method: 'GET', path: `/sql_alerts/${id}`, permissions: ['view_alerts'], restrictedTo },
    { method: 'GET', path: `/sql_alerts/${id}/results`, permissions: ['view_alerts'], restrictedTo },
    {
      method: 'PATCH',
      path: `/sql_alerts/${id}`,
      jsonapi: true,
      body: { data: { type: 'sql_alerts', id, attributes: { description: 'x' } } },
      permissions: [...write],
      restrictedTo,
    },
    { method: 'POST', path: `/sql_alerts/${id}/run_query`, permissions: ['manage_alerts'], restrictedTo },
    { method: 'DELETE', path: `/sql_alerts/${id}`, permissions: [...write], restrictedTo },
  ];
};
