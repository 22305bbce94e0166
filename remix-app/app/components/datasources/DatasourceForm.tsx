/**
 * Create or edit a datasource with the fields of its database type (lib/editor-datasources.ts). The
 * password and the BigQuery key are write-only: the form says whether one is stored, never shows it,
 * and keeps it unless a new one is typed or removal is ticked.
 */
import { useState, type ReactNode } from 'react';
import { TUNNEL_DATABASE_TYPES, UNPROVEN_DATABASE_TYPES, connectionModeRuns, databaseTypeRuns, databaseTypeRunsWith } from '@cairn/core';
import { authorizedKeysLine } from '@cairn/core/ssh-keys';
import { CheckField, FormErrors, SelectField, TextField } from '../editor/Field';
import {
  connectionModes,
  DATABASE_LABELS,
  DATABASE_TYPES,
  datasourceFields,
  DEFAULT_PORTS,
  type ConnectionMode,
  type DatabaseType,
  type DatasourceField,
} from '../../lib/editor-datasources';
import { unplacedErrors, type FormState } from '../../lib/editor-forms';

interface Props {
  mode: 'create' | 'update';
  initial: FormState;
  /** Whether a password / service key is stored (edit only). */
  stored: { password: boolean; serviceKey: boolean };
  agents: { id: string; name: string; connected?: boolean }[];
  /** The organization's SSH public key (shown for ssh_tunnel); null when the viewer may not read it. */
  sshPublicKey?: string | null;
  errors: Record<string, string[]>;
  busy: boolean;
  readOnly: boolean;
  onSubmit(form: FormState): void;
  /** Tests the settings as they are in the form (saved or not); absent for viewers. */
  onTest?(form: FormState): void;
  /** Whether a test is running, and its result (the page clears it when a new test starts). */
  testing?: boolean;
  testResult?: ReactNode;
}

const NOT_YET = 'not available yet';

/**
 * A select whose options can be marked as not available yet (disabled, with a note): the types and
 * connection modes that cannot run queries come from @cairn/core, the list the API's connectors read.
 */
function AvailabilitySelect({
  name,
  label,
  value,
  onChange,
  disabled,
  options,
  errors,
  note,
}: {
  name: string;
  label: string;
  value: string;
  onChange(v: string): void;
  disabled?: boolean;
  options: { value: string; label: string; available: boolean }[];
  errors: Record<string, string[]>;
  note: string | null;
}) {
  const id = `f-${name}`;
  const invalid = Boolean(errors[name]?.length);
  return (
    <label className={`field${invalid ? ' is-invalid' : ''}`} htmlFor={id}>
      <span className="field__label">{label}</span>
      <select
        id={id}
        name={name}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid}
        disabled={disabled}
        data-testid={`field-${name}`}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} disabled={!o.available && o.value !== value} data-available={o.available ? 'yes' : 'no'}>
            {o.available ? o.label : `${o.label} (${NOT_YET})`}
          </option>
        ))}
      </select>
      {note ? (
        <span className="field__hint" data-testid={`${name}-note`}>
          {note}
        </span>
      ) : null}
      {invalid ? (
        <span className="field__error" role="alert">
          {errors[name]!.join(' ')}
        </span>
      ) : null}
    </label>
  );
}

/** What runs through a tunnel, as the form names it (`PostgreSQL, Amazon Redshift, MySQL and MariaDB`). */
const TUNNEL_TYPES_TEXT = (() => {
  const names = TUNNEL_DATABASE_TYPES.filter((t) => t in DATABASE_LABELS).map((t) => DATABASE_LABELS[t as DatabaseType]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names.join('');
})();
const MODE_LABELS: Record<ConnectionMode, string> = { direct: 'Direct connection', ssh_tunnel: 'SSH tunnel', agent: 'Cairn agent' };

export function DatasourceForm({
  mode,
  initial,
  stored,
  agents,
  sshPublicKey = null,
  errors,
  busy,
  readOnly,
  onSubmit,
  onTest,
  testing = false,
  testResult,
}: Props) {
  const [form, setForm] = useState<FormState>(initial);
  const [advanced, setAdvanced] = useState(false);
  const set = (k: string, v: unknown) => setForm((f) => ({ ...f, [k]: v as FormState[string] }));
  const type = String(form.database_type) as DatabaseType;
  const connection = String(form.connection_mode) as ConnectionMode;
  const modes = connectionModes(type);
  const fields = datasourceFields(type, modes.includes(connection) ? connection : 'direct', form.databricks_auth_mode === 'oauth_m2m' ? 'oauth_m2m' : 'pat');
  const basic = fields.filter((f) => !f.advanced);
  const extra = fields.filter((f) => f.advanced);
  const shown = ['name', 'database_type', 'connection_mode', 'agents', 'password', ...fields.map((f) => f.name)];
  // A new datasource of a type or mode that cannot run would never work: it cannot be created from here.
  const runs = databaseTypeRunsWith(type, connection);
  const unproven = (UNPROVEN_DATABASE_TYPES as readonly string[]).includes(type);
  const selectedAgents = Array.isArray(form.agents) ? (form.agents as string[]) : [];

  const changeType = (next: string) => {
    const t = next as DatabaseType;
    setForm((f) => ({
      ...f,
      database_type: t,
      port: '',
      connection_mode: connectionModes(t).includes(String(f.connection_mode) as ConnectionMode) ? f.connection_mode : 'direct',
    }));
  };

  const field = (f: DatasourceField) => {
    const value = form[f.name];
    if (f.input === 'checkbox')
      return <CheckField key={f.name} name={f.name} label={f.label} hint={f.hint} checked={value === true} onChange={(v) => set(f.name, v)} errors={errors} />;
    if (f.input === 'select') {
      return (
        <SelectField
          key={f.name}
          name={f.name}
          label={f.label}
          value={String(value ?? '')}
          onChange={(v) => set(f.name, v)}
          errors={errors}
          options={(f.options ?? []).map((o) => ({
            value: o,
            label: o === 'pat' ? 'Personal access token' : o === 'oauth_m2m' ? 'OAuth (service principal)' : o,
          }))}
        />
      );
    }
    if (f.input === 'password' || (f.kind === 'secret' && f.input === 'textarea')) {
      const isKey = f.name === 'bigquery_service_key';
      const has = isKey ? stored.serviceKey : stored.password;
      return (
        <div key={f.name}>
          <TextField
            name={f.name}
            label={f.label}
            type={isKey ? 'text' : 'password'}
            multiline={isKey}
            rows={4}
            autoComplete="new-password"
            value={typeof value === 'string' ? value : ''}
            onChange={(v) => set(f.name, v)}
            errors={errors}
            placeholder={mode === 'update' && has ? '•••••••• (set; type to replace)' : ''}
            hint={
              mode === 'update' ? (
                <span data-testid={`${f.name}-state`}>{has ? 'A value is stored (never shown). Leave empty to keep it.' : 'None stored.'}</span>
              ) : (
                f.hint
              )
            }
          />
          {mode === 'update' && has && !isKey ? (
            <CheckField
              name="remove_password"
              label="Remove the stored password"
              checked={form.remove_password === true}
              onChange={(v) => set('remove_password', v)}
            />
          ) : null}
        </div>
      );
    }
    return (
      <TextField
        key={f.name}
        name={f.name}
        label={f.label}
        type={f.input === 'number' ? 'number' : f.input === 'datetime' ? 'datetime-local' : 'text'}
        multiline={f.input === 'textarea'}
        value={typeof value === 'string' ? value : typeof value === 'number' ? String(value) : ''}
        onChange={(v) => set(f.name, v)}
        errors={errors}
        placeholder={f.name === 'port' ? String(DEFAULT_PORTS[type] ?? '') : f.placeholder}
        hint={f.hint}
      />
    );
  };

  return (
    <form
      className="editor-form"
      data-testid="datasource-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(form);
      }}
    >
      <FormErrors messages={unplacedErrors(errors, shown)} />
      <fieldset disabled={readOnly || busy}>
        <legend>Connection</legend>
        <div className="field-row">
          <TextField name="name" label="Name" value={String(form.name ?? '')} onChange={(v) => set('name', v)} errors={errors} required />
          <AvailabilitySelect
            name="database_type"
            label="Type"
            value={type}
            onChange={changeType}
            errors={errors}
            disabled={mode === 'update'}
            options={DATABASE_TYPES.map((t) => ({ value: t, label: DATABASE_LABELS[t], available: databaseTypeRuns(t) || databaseTypeRunsWith(t, 'agent') }))}
            note={
              runs
                ? unproven
                  ? `${DATABASE_LABELS[type]} runs through a Cairn agent, but Cairn has not run it against a real ${DATABASE_LABELS[type]} yet: try it on a test database first.`
                  : mode === 'create'
                    ? 'Types marked “not available yet” cannot run queries in Cairn yet.'
                    : null
                : databaseTypeRunsWith(type, 'agent')
                  ? `${DATABASE_LABELS[type]} runs through a Cairn agent only: choose Cairn agent under Connect through.${unproven ? ' It has not been tested against a real server yet.' : ''}`
                  : type === 'mongodb' || type === 'mongodbatlas'
                    ? `${DATABASE_LABELS[type]} cannot run queries in Cairn: add an SQL layer in front of it instead — the MongoDB BI Connector as a MySQL datasource, or Trino's MongoDB connector as a Trino datasource.`
                    : `${DATABASE_LABELS[type]} cannot run queries in Cairn yet${connection === 'agent' ? ' through an agent' : ''}: its settings are kept, but tests and reports on it are refused.`
            }
          />
          <AvailabilitySelect
            name="connection_mode"
            label="Connect through"
            value={connection}
            onChange={(v) => set('connection_mode', v)}
            errors={errors}
            options={modes.map((m) => ({ value: m, label: MODE_LABELS[m], available: m === 'agent' || connectionModeRuns(m, type) }))}
            note={
              connection === 'agent' || connectionModeRuns(connection, type)
                ? null
                : `${DATABASE_LABELS[type]} cannot run through an SSH tunnel yet: tunnels run ${TUNNEL_TYPES_TEXT}.`
            }
          />
        </div>
        {connection === 'ssh_tunnel' ? (
          <div className="field" data-testid="ssh-public-key">
            <span className="field__label">Cairn’s SSH key</span>
            {sshPublicKey ? (
              <>
                <span className="muted small">
                  Add this line to <code>~/.ssh/authorized_keys</code> of the SSH user on the SSH server:
                </span>
                <pre data-testid="ssh-authorized-keys-line">{authorizedKeysLine(sshPublicKey)}</pre>
              </>
            ) : (
              <span className="muted small">
                An administrator can see the organization’s SSH public key here, or with <code>npm run cairn -- org ssh-key</code>.
              </span>
            )}
          </div>
        ) : null}
        {connection === 'agent' ? (
          <label className="field">
            <span className="field__label">Agents</span>
            <select
              multiple
              value={selectedAgents}
              onChange={(e) =>
                set(
                  'agents',
                  [...e.target.selectedOptions].map((o) => o.value),
                )
              }
              data-testid="field-agents"
            >
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                  {a.connected === false ? ' (not connected)' : a.connected ? ' (connected)' : ''}
                </option>
              ))}
            </select>
            {agents.length === 0 ? <span className="field__hint">No agents yet: create one first (Administration → Agents).</span> : null}
            {errors.agents ? (
              <span className="field__error" role="alert">
                {errors.agents.join(' ')}
              </span>
            ) : null}
          </label>
        ) : null}
        <div className="field-row">{basic.map(field)}</div>
      </fieldset>
      <button type="button" className="link-button small" aria-expanded={advanced} onClick={() => setAdvanced((a) => !a)}>
        {advanced ? 'Hide' : 'Show'} advanced settings
      </button>
      {advanced || extra.some((f) => errors[f.name]) ? (
        <fieldset disabled={readOnly || busy}>
          <legend>Advanced</legend>
          <div className="field-row">{extra.map(field)}</div>
        </fieldset>
      ) : null}
      {!readOnly || onTest ? (
        <div className="editor-form__actions">
          {!readOnly ? (
            <button type="submit" className="button button--primary" disabled={busy || (mode === 'create' && !runs)} data-testid="datasource-save">
              {busy ? 'Saving…' : mode === 'create' ? 'Create datasource' : 'Save changes'}
            </button>
          ) : null}
          {onTest ? (
            <button type="button" className="button" disabled={testing || busy} onClick={() => onTest(form)} data-testid="test-connection">
              {testing ? 'Testing…' : 'Test connection'}
            </button>
          ) : null}
        </div>
      ) : null}
      {testResult ?? null}
    </form>
  );
}
