/**
 * Create or edit a datasource with the fields of its database type (lib/editor-datasources.ts). The
 * password and the BigQuery key are write-only: the form says whether one is stored, never shows it,
 * and keeps it unless a new one is typed or removal is ticked.
 */
import { useState } from 'react';
import { CheckField, FormErrors, SelectField, TextField } from '../editor/Field';
import {
  connectionModes, DATABASE_LABELS, DATABASE_TYPES, datasourceFields, DEFAULT_PORTS, type ConnectionMode, type DatabaseType, type DatasourceField,
} from '../../lib/editor-datasources';
import { unplacedErrors, type FormState } from '../../lib/editor-forms';

interface Props {
  mode: 'create' | 'update';
  initial: FormState;
  /** Whether a password / service key is stored (edit only). */
  stored: { password: boolean; serviceKey: boolean };
  agents: { id: string; name: string }[];
  errors: Record<string, string[]>;
  busy: boolean;
  readOnly: boolean;
  onSubmit(form: FormState): void;
}

const MODE_LABELS: Record<ConnectionMode, string> = { direct: 'Direct connection', ssh_tunnel: 'SSH tunnel', agent: 'Cairn agent' };

export function DatasourceForm({ mode, initial, stored, agents, errors, busy, readOnly, onSubmit }: Props) {
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
  const selectedAgents = Array.isArray(form.agents) ? (form.agents as string[]) : [];

  const changeType = (next: string) => {
    const t = next as DatabaseType;
    setForm((f) => ({ ...f, database_type: t, port: '', connection_mode: connectionModes(t).includes(String(f.connection_mode) as ConnectionMode) ? f.connection_mode : 'direct' }));
  };

  const field = (f: DatasourceField) => {
    const value = form[f.name];
    if (f.input === 'checkbox') return <CheckField key={f.name} name={f.name} label={f.label} hint={f.hint} checked={value === true} onChange={(v) => set(f.name, v)} errors={errors} />;
    if (f.input === 'select') {
      return <SelectField key={f.name} name={f.name} label={f.label} value={String(value ?? '')} onChange={(v) => set(f.name, v)} errors={errors} options={(f.options ?? []).map((o) => ({ value: o, label: o === 'pat' ? 'Personal access token' : o === 'oauth_m2m' ? 'OAuth (service principal)' : o }))} />;
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
            hint={mode === 'update' ? <span data-testid={`${f.name}-state`}>{has ? 'A value is stored (never shown). Leave empty to keep it.' : 'None stored.'}</span> : f.hint}
          />
          {mode === 'update' && has && !isKey ? (
            <CheckField name="remove_password" label="Remove the stored password" checked={form.remove_password === true} onChange={(v) => set('remove_password', v)} />
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
    <form className="editor-form" data-testid="datasource-form" onSubmit={(e) => { e.preventDefault(); onSubmit(form); }}>
      <FormErrors messages={unplacedErrors(errors, shown)} />
      <fieldset disabled={readOnly || busy}>
        <legend>Connection</legend>
        <div className="field-row">
          <TextField name="name" label="Name" value={String(form.name ?? '')} onChange={(v) => set('name', v)} errors={errors} required />
          <SelectField name="database_type" label="Type" value={type} onChange={changeType} errors={errors} disabled={mode === 'update'} options={DATABASE_TYPES.map((t) => ({ value: t, label: DATABASE_LABELS[t] }))} />
          <SelectField name="connection_mode" label="Connect through" value={connection} onChange={(v) => set('connection_mode', v)} errors={errors} options={modes.map((m) => ({ value: m, label: MODE_LABELS[m] }))} />
        </div>
        {connection === 'agent' ? (
          <label className="field">
            <span className="field__label">Agents</span>
            <select multiple value={selectedAgents} onChange={(e) => set('agents', [...e.target.selectedOptions].map((o) => o.value))} data-testid="field-agents">
              {agents.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
            </select>
            {agents.length === 0 ? <span className="field__hint">No agents yet: create one first (Administration).</span> : null}
            {errors.agents ? <span className="field__error" role="alert">{errors.agents.join(' ')}</span> : null}
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
      {!readOnly ? (
        <div className="editor-form__actions">
          <button type="submit" className="button button--primary" disabled={busy} data-testid="datasource-save">
            {busy ? 'Saving…' : mode === 'create' ? 'Create datasource' : 'Save changes'}
          </button>
        </div>
      ) : null}
    </form>
  );
}
