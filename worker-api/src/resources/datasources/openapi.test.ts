import { describe, expect, it } from 'vitest';
import { call } from '../../../test/fixtures.ts';

describe('OpenAPI: datasources, agents and SQL alerts', () => {
  it('documents every call with its permissions, request, answer and errors', async () => {
    const doc = (await call('/openapi.json')).json;
    const ops: [string, string, string[], string][] = [
      ['get', '/datasources', ['view_datasources'], '200'],
      ['post', '/datasources', ['manage_datasources'], '201'],
      ['get', '/datasources/{id}', ['view_datasources'], '200'],
      ['patch', '/datasources/{id}', ['manage_datasources'], '200'],
      ['delete', '/datasources/{id}', ['manage_datasources'], '204'],
      ['get', '/datasource_agents', ['view_datasources'], '200'],
      ['post', '/datasource_agents', ['manage_datasources'], '201'],
      ['get', '/datasource_agents/{id}', ['view_datasources'], '200'],
      ['patch', '/datasource_agents/{id}', ['manage_datasources'], '200'],
      ['delete', '/datasource_agents/{id}', ['manage_datasources'], '204'],
      ['get', '/sql_alerts', ['view_alerts'], '200'],
      ['post', '/sql_alerts', ['manage_alerts'], '201'],
      ['get', '/sql_alerts/{id}', ['view_alerts'], '200'],
      ['patch', '/sql_alerts/{id}', ['manage_alerts', 'manage_datasources'], '200'],
      ['delete', '/sql_alerts/{id}', ['manage_alerts', 'manage_datasources'], '204'],
      ['get', '/sql_alerts/{id}/results', ['view_alerts'], '200'],
    ];
    for (const [method, path, perms, ok] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions'], `${method} ${path}`).toEqual(perms);
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining([ok, '401', '403', '429']));
    }
    expect(doc.paths['/datasources'].post.requestBody.content['application/vnd.api+json']).toBeDefined();
    expect(doc.paths['/sql_alerts/{id}/results'].get.responses['200'].content['application/json']).toBeDefined();
    expect(doc.paths['/datasources'].post.responses['422']).toBeDefined();
    const schemas = doc.components.schemas;
    expect(schemas.Datasource.properties.attributes.properties.database_type.enum).toHaveLength(16);
    expect(schemas.Datasource.properties.attributes.properties).not.toHaveProperty('password');
    expect(schemas.NewDatasourceAgent.properties.attributes.properties).toHaveProperty('secret_key');
    expect(schemas.DatasourceAgent.properties.attributes.properties).not.toHaveProperty('secret_key');
    expect(schemas.SqlAlert.properties.attributes.properties.trigger_condition.enum).toContain('not_equal');
    expect(schemas.SqlAlertResults.properties).toHaveProperty('cursor');
  });
});
