/**
 * The permission vocabulary shared by the API, the data server and the web app.
 * API keys carry a subset of these, optionally restricted to named resources;
 * signed-in users get a set derived from their organization role.
 */
export const PERMISSIONS = [
  'view_dashboards',
  'manage_dashboards',
  'view_schedules',
  'manage_schedules',
  'view_datasources',
  'manage_datasources',
  'view_users',
  'manage_users',
  'view_alerts',
  'manage_alerts',
  'include_sql_details',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Human names, as the spec writes them (used by the CLI, the app and the docs). */
export const PERMISSION_LABELS: Record<Permission, string> = {
  view_dashboards: 'View Dashboards',
  manage_dashboards: 'Manage Dashboards',
  view_schedules: 'View Schedules',
  manage_schedules: 'Manage Schedules',
  view_datasources: 'View Datasources',
  manage_datasources: 'Manage Datasources',
  view_users: 'View Users',
  manage_users: 'Manage Users',
  view_alerts: 'View Alerts',
  manage_alerts: 'Manage Alerts',
  include_sql_details: 'Include SQL Details',
};

/** A manage permission implies its view permission. */
export const IMPLIED_BY: Partial<Record<Permission, Permission>> = {
  view_dashboards: 'manage_dashboards',
  view_schedules: 'manage_schedules',
  view_datasources: 'manage_datasources',
  view_users: 'manage_users',
  view_alerts: 'manage_alerts',
};

export const RESTRICTABLE_RESOURCE_TYPES = ['dashboards', 'datasources', 'sql_alerts'] as const;
export type RestrictableResourceType = (typeof RESTRICTABLE_RESOURCE_TYPES)[number];

/**
 * One grant of an API key. `resources` null means "every resource of the organization";
 * otherwise the permission applies only to the listed resources.
 */
export interface Grant {
  permission: Permission;
  resources: { type: RestrictableResourceType; id: string }[] | null;
}

export const ROLES = ['viewer', 'analyst', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const VIEWER: Permission[] = ['view_dashboards', 'view_schedules', 'view_alerts'];
const ANALYST: Permission[] = [
  ...VIEWER,
  'manage_dashboards',
  'manage_schedules',
  'view_datasources',
  'view_users',
  'manage_alerts',
  'include_sql_details',
];
const ADMIN: Permission[] = [...PERMISSIONS];

/** Permissions a signed-in user holds by role: viewers read, analysts build, admins administer. */
export function permissionsForRole(role: Role): Grant[] {
  const list = role === 'admin' ? ADMIN : role === 'analyst' ? ANALYST : VIEWER;
  return list.map((permission) => ({ permission, resources: null }));
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Parses "View Dashboards", "view_dashboards" or "view-dashboards" into a Permission. */
export function parsePermission(value: string): Permission | null {
  const key = value.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return isPermission(key) ? key : null;
}

/**
 * Does the grant list allow `permission`, on `resource` when given?
 * A grant restricted to resources of one type allows only those ids of that type;
 * a grant restricted to another type says nothing about this resource, so it allows it
 * (a key restricted to datasource X may still read every dashboard if it holds View Dashboards).
 */
export function allows(
  grants: readonly Grant[],
  permission: Permission,
  resource?: { type: RestrictableResourceType; id: string },
): boolean {
  const accepted: Permission[] = [permission];
  const stronger = IMPLIED_BY[permission];
  if (stronger) accepted.push(stronger);
  return grants.some((g) => {
    if (!accepted.includes(g.permission)) return false;
    if (g.resources === null || !resource) return true;
    const sameType = g.resources.filter((r) => r.type === resource.type);
    if (sameType.length === 0) return true;
    return sameType.some((r) => r.id === resource.id);
  });
}

/** True when the key holds any of the given permissions (unrestricted or not). */
export function holdsAny(grants: readonly Grant[], permissions: readonly Permission[]): boolean {
  return permissions.some((p) => grants.some((g) => g.permission === p || IMPLIED_BY[p] === g.permission));
}
