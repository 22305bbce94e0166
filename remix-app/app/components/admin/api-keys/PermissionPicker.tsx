/**
 * The API key permission picker (create and edit forms): a box per permission and, for permissions
 * that can be limited, a choice of the dashboards, datasources or SQL alerts it is limited to.
 * Field names are read by `grantsFromForm` (lib/api-key-grants.ts).
 */
import { useState } from 'react';
import { PERMISSION_LABELS, PERMISSIONS, type Grant, type Permission, type RestrictableResourceType as ResourceType } from '@cairn/core';
import { choicesFromGrants, RESTRICTABLE, type ChoiceState } from '../../../lib/api-key-grants';

export type Resources = Record<ResourceType, { id: string; name: string }[]>;
const TYPE_WORDS: Record<ResourceType, string> = { dashboards: 'dashboards', datasources: 'datasources', sql_alerts: 'SQL alerts' };

function PermissionChoice({
  permission,
  resources,
  start,
  testPrefix,
}: {
  permission: Permission;
  resources: Resources;
  start: ChoiceState;
  testPrefix: string;
}) {
  const [on, setOn] = useState(start.on);
  const [limit, setLimit] = useState(start.limit);
  const type = RESTRICTABLE[permission];
  const list = type ? resources[type] : [];
  return (
    <div>
      <label className="check">
        <input
          type="checkbox"
          name={`perm_${permission}`}
          checked={on}
          onChange={(e) => setOn(e.target.checked)}
          data-testid={`${testPrefix}perm-${permission}`}
        />
        <span>{PERMISSION_LABELS[permission]}</span>
      </label>
      {on && type ? (
        <div className="restrict">
          <label className="check small">
            <input
              type="checkbox"
              name={`limit_${permission}`}
              checked={limit}
              onChange={(e) => setLimit(e.target.checked)}
              data-testid={`${testPrefix}limit-${permission}`}
            />
            <span>Only some {TYPE_WORDS[type]}</span>
          </label>
          {limit ? (
            list.length ? (
              <select
                multiple
                name={`only_${permission}`}
                defaultValue={start.only}
                className="select-small"
                aria-label={`${PERMISSION_LABELS[permission]}: only these ${TYPE_WORDS[type]}`}
                data-testid={`${testPrefix}only-${permission}`}
              >
                {list.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
              </select>
            ) : (
              <span className="muted small">There are no {TYPE_WORDS[type]} to choose from.</span>
            )
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** The permission boxes, started from `grants` (none for a new key). `testPrefix` keeps test ids apart when two pickers are shown. */
export function PermissionPicker({ resources, grants, testPrefix = '' }: { resources: Resources; grants?: readonly Grant[]; testPrefix?: string }) {
  const start = choicesFromGrants(grants);
  return (
    <div className="check-grid">
      {PERMISSIONS.map((p) => (
        <PermissionChoice key={p} permission={p} resources={resources} start={start[p]} testPrefix={testPrefix} />
      ))}
    </div>
  );
}
