import { describe, expect, it } from 'vitest';
import { appCall } from '../../../test/engine-fixtures.ts';

describe("OpenAPI: executions and the engine's action calls", () => {
  it('documents every call with its permissions, request, answer and errors', async () => {
    const doc = (await appCall('/openapi.json')).json;
    const ops: [string, string, string[], string[]][] = [
      ['post', '/datasources/{id}/executions', ['manage_datasources', 'manage_dashboards', 'manage_alerts'], ['201', '404', '415', '422']],
      ['get', '/executions/{id}', ['view_dashboards', 'view_alerts', 'view_datasources'], ['200', '404']],
      ['post', '/executions/{id}/cancel', ['manage_dashboards', 'manage_alerts', 'manage_datasources'], ['204', '404']],
      ['get', '/executions/{id}/data', ['view_dashboards', 'view_alerts', 'view_datasources'], ['200', '204', '422']],
      ['post', '/datasources/{id}/test_connection', ['manage_datasources'], ['200', '404', '422']],
      ['post', '/datasources/{id}/refresh', ['manage_datasources'], ['200', '404', '422']],
      ['get', '/datasources/{id}/schema', ['view_datasources'], ['200', '400', '404', '422']],
      ['post', '/sql_alerts/{id}/run_query', ['manage_alerts'], ['200', '404', '422']],
      ['post', '/filters/{id}/options', ['view_dashboards'], ['200', '404', '415', '422']],
      ['post', '/filters/{id}/refresh', ['view_dashboards'], ['200', '204', '404', '422']],
      ['post', '/dashboards/{id}/status', ['view_dashboards'], ['200', '404', '422']],
      ['post', '/dashboards/{id}/refresh', ['view_dashboards'], ['204', '404']],
      ['post', '/reports/{id}/refresh', ['view_dashboards'], ['200', '404']],
    ];
    for (const [method, path, perms, answers] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions'], `${method} ${path}`).toEqual(perms);
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining([...answers, '401', '403', '429']));
      expect(op.description.length, `${method} ${path}`).toBeGreaterThan(40);
    }
    const schemas = doc.components.schemas;
    expect(schemas.FilterOptions.properties.options.items).toBeDefined();
    expect(schemas.FilterOptionSet.required).toEqual(['values', 'value_names', 'parent_values']);
    expect(schemas.ConnectionTest.properties.status.enum).toEqual(['ok', 'error']);
    expect(schemas.SchemaHandle.required).toEqual(['data_key', 'data_access_token', 'data_url']);
    expect(doc.paths['/filters/{id}/options'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/FilterOptionsRequest');
    expect(doc.paths['/datasources/{id}/schema'].get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['id', 'name']));
  });
});
