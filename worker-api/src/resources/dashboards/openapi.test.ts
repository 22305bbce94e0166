import { describe, expect, it } from 'vitest';
import { call } from '../../../test/fixtures.ts';

/** Every call of the dashboards, sharing links and export jobs modules, with its permission. */
const OPERATIONS: [string, string, string, string[]][] = [
  ['get', '/dashboards', 'view_dashboards', ['200']],
  ['post', '/dashboards', 'manage_dashboards', ['201', '415', '422']],
  ['post', '/dashboards/restore', 'manage_dashboards', ['201', '422']],
  ['get', '/dashboards/{id}', 'view_dashboards', ['200', '404']],
  ['patch', '/dashboards/{id}', 'manage_dashboards', ['200', '404', '409', '422']],
  ['delete', '/dashboards/{id}', 'manage_dashboards', ['204', '404', '422']],
  ['post', '/dashboards/{id}/lock', 'manage_dashboards', ['200', '404']],
  ['delete', '/dashboards/{id}/lock', 'manage_dashboards', ['200', '404']],
  ['post', '/dashboards/{id}/duplicate', 'manage_dashboards', ['201', '404']],
  ['put', '/dashboards/{id}/layout', 'manage_dashboards', ['200', '404', '422']],
  ['post', '/dashboards/{id}/share', 'manage_dashboards', ['200', '404', '422']],
  ['post', '/dashboards/{id}/backup', 'manage_dashboards', ['200', '404']],
  ['get', '/dashboard_sharing_links', 'manage_dashboards', ['200']],
  ['post', '/dashboard_sharing_links', 'manage_dashboards', ['201', '422']],
  ['get', '/dashboard_sharing_links/{id}', 'manage_dashboards', ['200', '404']],
  ['patch', '/dashboard_sharing_links/{id}', 'manage_dashboards', ['201', '404', '422']],
  ['delete', '/dashboard_sharing_links/{id}', 'manage_dashboards', ['204', '404']],
  ['get', '/export_jobs/{id}', 'view_dashboards', ['200', '404']],
  ['delete', '/export_jobs/{id}', 'manage_dashboards', ['204', '404']],
];

describe('OpenAPI document: dashboards, sharing links, export jobs', () => {
  it('documents every call with its permission, answers and error codes', async () => {
    const doc = (await call('/openapi.json')).json;
    for (const [method, path, permission, statuses] of OPERATIONS) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op['x-permissions'], `${method} ${path}`).toEqual([permission]);
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining([...statuses, '401', '403', '429']));
      expect(op.description.length, `${method} ${path}`).toBeGreaterThan(20);
    }
  });

  it('describes the resources with typed schemas', async () => {
    const doc = (await call('/openapi.json')).json;
    const s = doc.components.schemas;
    expect(s.Dashboard.properties.attributes.properties.color_scheme.enum).toContain('scheme_8');
    expect(s.Dashboard.properties.attributes.properties.share_mode.enum).toEqual(['none', 'all_users', 'all_analysts', 'custom']);
    expect(s.LayoutTile.properties.column).toMatchObject({ minimum: 1, maximum: 12 });
    expect(s.DashboardShare.properties.share_mode.enum).toContain('custom');
    expect(s.DashboardBackup.properties.format.const ?? s.DashboardBackup.properties.format.enum?.[0]).toBe('cairn.dashboard-backup');
    expect(s.DashboardSharingLink.properties.attributes.properties).toHaveProperty('sharing_password_set');
    expect(s.DashboardSharingLink.properties.attributes.properties).not.toHaveProperty('sharing_password');
    expect(s.ExportJob.properties.attributes.properties.job_status.enum).toEqual(['started', 'running', 'success', 'error']);
    const create = doc.paths['/dashboard_sharing_links'].post.requestBody.content['application/vnd.api+json'].schema;
    expect(JSON.stringify(create)).toContain('sharing_password');
    expect(doc.paths['/dashboards/{id}/layout'].put.requestBody.content['application/json']).toBeDefined();
  });
});
