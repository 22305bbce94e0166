/**
 * Every option of a sharing link as form fields (spec: DashboardSharingLink). The filter bar needs the
 * toolbar and parameters, so it is greyed out (and sent off) until both are on; the API refuses the
 * combination anyway.
 */
import type { ApiSchema } from '@cairn/client';
import { useState } from 'react';

/** A sharing link's attributes as the API document types them. */
export type LinkAttributes = ApiSchema<'DashboardSharingLink'>['attributes'];
/** The options a form edits: everything but the generated token and the timestamps. */
type LinkOptionValues = Omit<LinkAttributes, 'token' | 'created_at' | 'updated_at'>;

export const LINK_DEFAULTS: Omit<LinkOptionValues, 'name'> = {
  description: null,
  toolbar_enabled: true,
  parameters_enabled: false,
  filter_bar_enabled: false,
  refresh_enabled: false,
  data_download_enabled: true,
  unlimited_csv_export_enabled: false,
  sharing_secret_required: false,
  sharing_password_set: false,
  color_mode: 'light',
  ip_whitelist: null,
};

function Switch({
  name,
  label,
  hint,
  checked,
  onChange,
  disabled,
  testId,
}: {
  name: string;
  label: string;
  hint: string;
  checked: boolean;
  onChange?: (v: boolean) => void;
  disabled?: boolean;
  testId?: string;
}) {
  return (
    <label className={`check${disabled ? ' is-disabled' : ''}`}>
      <input
        type="checkbox"
        name={name}
        checked={checked && !disabled}
        disabled={disabled}
        onChange={(e) => onChange?.(e.target.checked)}
        data-testid={testId ?? `opt-${name}`}
      />
      <span>
        {label}
        <small>{hint}</small>
      </span>
    </label>
  );
}

export function LinkOptions({ link, clientIp }: { link: LinkOptionValues & { token?: string }; clientIp: string | null }) {
  const [v, setV] = useState({
    toolbar: link.toolbar_enabled,
    parameters: link.parameters_enabled,
    filterBar: link.filter_bar_enabled,
    refresh: link.refresh_enabled,
    download: link.data_download_enabled,
    unlimited: link.unlimited_csv_export_enabled,
    secret: link.sharing_secret_required,
  });
  const [password, setPassword] = useState<'keep' | 'set' | 'none'>(link.sharing_password_set ? 'keep' : 'none');
  const set = (k: keyof typeof v) => (value: boolean) => setV((s) => ({ ...s, [k]: value }));
  const filterBarPossible = v.toolbar && v.parameters;
  return (
    <>
      <div className="form-grid">
        <label className="field">
          <span className="field__label">Name</span>
          <input name="name" required maxLength={200} defaultValue={link.name} placeholder="Office screen, Partner portal…" data-testid="link-name" />
        </label>
        <label className="field">
          <span className="field__label">Description (who got it and why)</span>
          <input name="description" maxLength={10000} defaultValue={link.description ?? ''} />
        </label>
      </div>

      <fieldset className="fieldset" style={{ marginTop: 16 }}>
        <legend>What viewers may do</legend>
        <div className="check-grid">
          <Switch
            name="toolbar_enabled"
            label="Toolbar"
            hint="The bar above the dashboard with its name and the allowed actions."
            checked={v.toolbar}
            onChange={set('toolbar')}
          />
          <Switch
            name="parameters_enabled"
            label="Parameters"
            hint="Filter values from the link’s URL (f.<variable>=…) are applied."
            checked={v.parameters}
            onChange={set('parameters')}
          />
          <Switch
            name="filter_bar_enabled"
            label="Filter bar"
            checked={v.filterBar}
            onChange={set('filterBar')}
            disabled={!filterBarPossible}
            hint={filterBarPossible ? 'Viewers change filters themselves.' : 'Needs the toolbar and parameters.'}
          />
          <Switch name="refresh_enabled" label="Refresh" hint="Viewers may re-run the reports now." checked={v.refresh} onChange={set('refresh')} />
          <Switch
            name="data_download_enabled"
            label="Data downloads"
            hint="CSV and Excel downloads, where the report allows them too."
            checked={v.download}
            onChange={set('download')}
          />
          <Switch
            name="unlimited_csv_export_enabled"
            label="Unlimited CSV exports"
            hint="Complete CSV exports, where the report allows them."
            checked={v.unlimited}
            onChange={set('unlimited')}
          />
        </div>
      </fieldset>

      <fieldset className="fieldset" style={{ marginTop: 16 }}>
        <legend>Appearance</legend>
        <div className="form-grid">
          <label className="field">
            <span className="field__label">Colour mode</span>
            <select name="color_mode" defaultValue={link.color_mode} data-testid="link-color-mode">
              <option value="light">Light</option>
              <option value="dark">Dark (wall screens)</option>
            </select>
          </label>
        </div>
      </fieldset>

      <fieldset className="fieldset" style={{ marginTop: 16 }}>
        <legend>Protection</legend>
        <div className="choice-list">
          <span className="field__label">Password</span>
          {link.sharing_password_set ? (
            <label className="check">
              <input type="radio" name="password_mode" value="keep" checked={password === 'keep'} onChange={() => setPassword('keep')} /> Keep the current
              password
            </label>
          ) : null}
          <label className="check">
            <input type="radio" name="password_mode" value="none" checked={password === 'none'} onChange={() => setPassword('none')} /> No password
          </label>
          <label className="check">
            <input
              type="radio"
              name="password_mode"
              value="set"
              checked={password === 'set'}
              onChange={() => setPassword('set')}
              data-testid="link-password-set"
            />{' '}
            {link.sharing_password_set ? 'Set a new password' : 'Ask for a password'}
          </label>
          {password === 'set' ? (
            <label className="field" style={{ maxWidth: 360 }}>
              <span className="field__label">New password</span>
              <input name="sharing_password" type="password" required maxLength={200} autoComplete="new-password" data-testid="link-password" />
              <span className="field__hint">Stored only as a hash and never shown again: keep it somewhere safe.</span>
            </label>
          ) : null}
        </div>
        <label className="field">
          <span className="field__label">IP allow-list</span>
          <textarea
            name="ip_whitelist"
            defaultValue={link.ip_whitelist ?? ''}
            placeholder="203.0.113.7, 198.51.100.0/24, 2001:db8::/32"
            data-testid="link-ip-whitelist"
          />
          <span className="field__hint" style={{ maxWidth: 'none' }}>
            Comma-separated IPv4/IPv6 addresses and CIDR ranges. Empty: any address.
            {clientIp ? (
              <>
                {' '}
                Your address as Cairn sees it: <code>{clientIp}</code>.
              </>
            ) : null}
          </span>
        </label>
        <Switch
          name="sharing_secret_required"
          label="Sharing secret required"
          checked={v.secret}
          onChange={set('secret')}
          hint="For embedding: the link opens only with an address signed by your server with the link’s sharing secret."
        />
      </fieldset>
    </>
  );
}

/** The form's switches as API attributes (a switch left unchecked is false; the password as chosen). */
export function attributesFromForm(form: FormData): Record<string, unknown> {
  const on = (k: string) => form.get(k) === 'on';
  const text = (k: string) => String(form.get(k) ?? '').trim();
  const attrs: Record<string, unknown> = {
    name: text('name'),
    description: text('description') || null,
    toolbar_enabled: on('toolbar_enabled'),
    parameters_enabled: on('parameters_enabled'),
    filter_bar_enabled: on('filter_bar_enabled') && on('toolbar_enabled') && on('parameters_enabled'),
    refresh_enabled: on('refresh_enabled'),
    data_download_enabled: on('data_download_enabled'),
    unlimited_csv_export_enabled: on('unlimited_csv_export_enabled'),
    sharing_secret_required: on('sharing_secret_required'),
    color_mode: text('color_mode') === 'dark' ? 'dark' : 'light',
    ip_whitelist: text('ip_whitelist') || null,
  };
  const mode = text('password_mode');
  if (mode === 'set') attrs.sharing_password = String(form.get('sharing_password') ?? '');
  else if (mode === 'none') attrs.sharing_password = null;
  return attrs;
}

/** The switches that are on, as short words for a list of links. */
export function optionWords(l: Omit<LinkAttributes, 'created_at' | 'updated_at'>): string[] {
  const out: string[] = [];
  if (l.sharing_password_set) out.push('password');
  if (l.ip_whitelist) out.push('IP allow-list');
  if (l.sharing_secret_required) out.push('signed');
  if (l.filter_bar_enabled) out.push('filter bar');
  else if (l.parameters_enabled) out.push('parameters');
  if (l.refresh_enabled) out.push('refresh');
  if (l.data_download_enabled) out.push('downloads');
  if (l.color_mode === 'dark') out.push('dark');
  return out;
}
