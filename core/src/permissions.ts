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
const ANALYST: Permission[] = [...VIEWER, 'manage_dashboards', 'manage_schedules', 'view_datasources', 'view_users', 'manage_alerts', 'include_sql_details'];
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
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return isPermission(key) ? key : null;
}

/** One resource a check is about. */
export interface ResourceRef {
  type: RestrictableResourceType;
  id: string;
}

/** The target of an organization-wide action: creating something, or changing what the whole organization shares. */
export const ORGANIZATION = 'organization' as const;

/**
 * What a permission check is about:
 * - nothing (undefined): does the caller hold the permission at all? The entry check of a verb that then
 *   checks the resource it finds, or lists only what the caller's grants reach;
 * - `ORGANIZATION`: an organization-wide action (create a dashboard, a datasource, an alert; create,
 *   change or delete SQL snippets, dashboard groups, agents, filters not on a dashboard);
 * - one resource, or every resource the action touches (a report's dashboard and its datasource, an
 *   alert and its datasource).
 */
export type GrantTarget = ResourceRef | readonly ResourceRef[] | typeof ORGANIZATION;

/**
 * THE rule for restricted grants (one place; the API, its list filters and the docs table follow it):
 * an unrestricted grant reaches the whole organization. A grant restricted to resources reaches only
 * the resources it names and what belongs to them, never the organization as a whole:
 * - every touched resource of a kind the grant names must be one it names;
 * - at least one touched resource must be of a kind it names (a grant restricted to dashboards says
 *   nothing about a datasource on its own, so it cannot run ad hoc SQL or manage datasources);
 * - an organization-wide action is outside every restricted grant.
 * So a report on dashboard D and datasource X is reached by a grant restricted to D (whatever the
 * datasource) or to X (whatever the dashboard), and by one naming both D and X.
 */
export function grantReaches(grant: Grant, target?: GrantTarget): boolean {
  if (grant.resources === null || target === undefined) return true;
  if (target === ORGANIZATION) return false;
  const touched: readonly ResourceRef[] = Array.isArray(target) ? target : [target as ResourceRef];
  const named = grant.resources;
  const ofNamedKind = touched.filter((t) => named.some((r) => r.type === t.type));
  if (ofNamedKind.length === 0) return false;
  return ofNamedKind.every((t) => named.some((r) => r.type === t.type && r.id === t.id));
}

/** The permissions that satisfy a check for `permission`: itself and the Manage permission that implies it. */
export function acceptedFor(permission: Permission): Permission[] {
  const stronger = IMPLIED_BY[permission];
  return stronger ? [permission, stronger] : [permission];
}

/** Does the grant list allow `permission` on `target` (see `grantReaches` for restricted grants)? */
export function allows(grants: readonly Grant[], permission: Permission, target?: GrantTarget): boolean {
  const accepted = acceptedFor(permission);
  return grants.some((g) => accepted.includes(g.permission) && grantReaches(g, target));
}

/** True when the key holds any of the given permissions (unrestricted or not). */
export function holdsAny(grants: readonly Grant[], permissions: readonly Permission[]): boolean {
  return permissions.some((p) => grants.some((g) => g.permission === p || IMPLIED_BY[p] === g.permission));
}
