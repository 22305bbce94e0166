import { describe, expect, it } from 'vitest';
import { allows, grantReaches, ORGANIZATION, type Grant } from '../src/index.ts';

const dash = (id: string) => ({ type: 'dashboards' as const, id });
const ds = (id: string) => ({ type: 'datasources' as const, id });
const alert = (id: string) => ({ type: 'sql_alerts' as const, id });

describe('grantReaches: the one rule for restricted grants', () => {
  const open: Grant = { permission: 'manage_dashboards', resources: null };
  const onD1: Grant = { permission: 'manage_dashboards', resources: [dash('d1')] };
  const onX: Grant = { permission: 'manage_dashboards', resources: [ds('x')] };
  const onD1andX: Grant = { permission: 'manage_dashboards', resources: [dash('d1'), ds('x')] };

  it('an unrestricted grant reaches everything, the organization included', () => {
    for (const t of [undefined, ORGANIZATION, dash('d9'), [dash('d9'), ds('y')]] as const) expect(grantReaches(open, t)).toBe(true);
  });

  it('a restricted grant never reaches the organization as a whole', () => {
    for (const g of [onD1, onX, onD1andX]) expect(grantReaches(g, ORGANIZATION)).toBe(false);
  });

  it('reaches the resources it names and what belongs to them', () => {
    expect(grantReaches(onD1, dash('d1'))).toBe(true);
    expect(grantReaches(onD1, dash('d2'))).toBe(false);
    // A report on d1 runs on any datasource; one on d2 is out of reach.
    expect(grantReaches(onD1, [dash('d1'), ds('y')])).toBe(true);
    expect(grantReaches(onD1, [dash('d2'), ds('y')])).toBe(false);
    // Restricted to a datasource: reports on it, on any dashboard; not the dashboards themselves.
    expect(grantReaches(onX, [dash('d2'), ds('x')])).toBe(true);
    expect(grantReaches(onX, [dash('d2'), ds('y')])).toBe(false);
    expect(grantReaches(onX, dash('d2'))).toBe(false);
    // Naming both kinds: both must match.
    expect(grantReaches(onD1andX, [dash('d1'), ds('x')])).toBe(true);
    expect(grantReaches(onD1andX, [dash('d1'), ds('y')])).toBe(false);
  });

  it('says nothing for a kind it does not name: a dashboard grant reaches no datasource or alert on its own', () => {
    expect(grantReaches(onD1, ds('x'))).toBe(false);
    expect(grantReaches(onD1, [alert('a'), ds('x')])).toBe(false);
    expect(grantReaches({ permission: 'manage_alerts', resources: [alert('a')] }, ds('x'))).toBe(false);
    expect(grantReaches({ permission: 'manage_alerts', resources: [alert('a')] }, [alert('a'), ds('x')])).toBe(true);
  });

  it('allows() takes the Manage permission for its View and any grant that reaches the target', () => {
    const grants: Grant[] = [onD1, { permission: 'view_dashboards', resources: null }];
    expect(allows(grants, 'view_dashboards', dash('d2'))).toBe(true);
    expect(allows(grants, 'manage_dashboards', dash('d2'))).toBe(false);
    expect(allows(grants, 'view_dashboards', ORGANIZATION)).toBe(true);
    expect(allows(grants, 'manage_dashboards', ORGANIZATION)).toBe(false);
    expect(allows(grants, 'manage_dashboards')).toBe(true);
    expect(allows([onD1], 'view_dashboards', dash('d1'))).toBe(true);
  });
});
