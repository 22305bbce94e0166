/**
 * The API key permission picker's form fields ↔ the API's grants: `perm_<permission>` checked,
 * `limit_<permission>` checked to limit it, `only_<permission>` the chosen resource ids.
 * Pure functions (unit tested in api-key-grants.test.ts).
 */
import { PERMISSIONS, type Grant, type Permission, type RestrictableResourceType } from '@cairn/core';

/** Which resources a permission can be limited to. */
export const RESTRICTABLE: Partial<Record<Permission, RestrictableResourceType>> = {
  view_dashboards: 'dashboards',
  manage_dashboards: 'dashboards',
  view_datasources: 'datasources',
  manage_datasources: 'datasources',
  view_alerts: 'sql_alerts',
  manage_alerts: 'sql_alerts',
};

const isOn = (form: FormData, name: string) => form.get(name) === 'on' || form.get(name) === 'true';

/** The grants the picker's fields describe, in the order of PERMISSIONS (an empty limit means every resource). */
export function grantsFromForm(form: FormData): Grant[] {
  return PERMISSIONS.filter((p) => isOn(form, `perm_${p}`)).map((permission) => {
    const type = RESTRICTABLE[permission];
    const ids = type && isOn(form, `limit_${permission}`) ? form.getAll(`only_${permission}`).map(String).filter(Boolean) : [];
    return { permission, resources: type && ids.length ? ids.map((id) => ({ type, id })) : null };
  });
}

/** What one permission's picker row starts with. */
export interface ChoiceState {
  on: boolean;
  limit: boolean;
  only: string[];
}

/** The picker's starting state for a key's grants (nothing chosen for a new key). */
export function choicesFromGrants(grants: readonly Grant[] = []): Record<Permission, ChoiceState> {
  const out = {} as Record<Permission, ChoiceState>;
  for (const p of PERMISSIONS) {
    const g = grants.find((x) => x.permission === p);
    const only = g?.resources?.map((r) => r.id) ?? [];
    out[p] = { on: Boolean(g), limit: only.length > 0, only };
  }
  return out;
}
