import { describe, expect, it } from 'vitest';
import { choicesFromGrants, grantsFromForm } from './api-key-grants';

describe('API key grants ↔ picker fields', () => {
  it('reads checked permissions, limited ones with their resources', () => {
    const fd = new FormData();
    fd.set('perm_view_dashboards', 'on');
    fd.set('limit_view_dashboards', 'on');
    fd.append('only_view_dashboards', 'dsh_1');
    fd.append('only_view_dashboards', 'dsh_2');
    fd.set('perm_view_users', 'on');
    fd.set('perm_manage_alerts', 'on');
    fd.set('limit_manage_alerts', 'on'); // limited to nothing chosen: every alert
    expect(grantsFromForm(fd)).toEqual([
      {
        permission: 'view_dashboards',
        resources: [
          { type: 'dashboards', id: 'dsh_1' },
          { type: 'dashboards', id: 'dsh_2' },
        ],
      },
      { permission: 'view_users', resources: null },
      { permission: 'manage_alerts', resources: null },
    ]);
  });

  it('ignores limits on permissions that are not chosen', () => {
    const fd = new FormData();
    fd.set('limit_view_dashboards', 'on');
    fd.append('only_view_dashboards', 'dsh_1');
    expect(grantsFromForm(fd)).toEqual([]);
  });

  it('starts the picker from a key’s grants', () => {
    const c = choicesFromGrants([
      { permission: 'view_datasources', resources: [{ type: 'datasources', id: 'dsr_9' }] },
      { permission: 'view_users', resources: null },
    ]);
    expect(c.view_datasources).toEqual({ on: true, limit: true, only: ['dsr_9'] });
    expect(c.view_users).toEqual({ on: true, limit: false, only: [] });
    expect(c.manage_users).toEqual({ on: false, limit: false, only: [] });
    expect(Object.values(choicesFromGrants()).every((x) => !x.on)).toBe(true);
  });
});
