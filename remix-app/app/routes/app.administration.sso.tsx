/**
 * `/app/administration/sso`: the organization's single sign-on (ARCHITECTURE D57) — OpenID Connect or
 * SAML 2.0, the e-mail domains it covers, whether passwords still work, and just-in-time creation of
 * users. Admins only (the API decides). The fixed addresses to register at the provider are shown first.
 */
import { useState } from 'react';
import { data, Form, useNavigation } from 'react-router';
import type { Route } from './+types/app.administration.sso';
import { AdminHeader } from '../components/admin/AdminNav';
import { listPath, loadViewer } from '../components/admin/admin.server';
import { requireApi } from '../lib/api.server';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

interface Addresses {
  oidc_redirect_uri: string;
  saml_acs_url: string;
  saml_metadata_url: string;
  saml_entity_id: string;
}
interface Connection {
  protocol: 'oidc' | 'saml';
  preset: string;
  issuer: string;
  client_id: string | null;
  client_secret_set: boolean;
  metadata_url: string | null;
  sso_url: string | null;
  certificate: string | null;
  domains: string[];
  require_sso: boolean;
  jit_role: string | null;
  jit_group_ids: string[];
}

const PRESETS = [
  {
    value: 'google',
    label: 'Google Workspace',
    protocol: 'oidc',
    issuer: 'https://accounts.google.com',
    hint: 'Google Cloud console → APIs & Services → Credentials → OAuth client ID (Web application).',
  },
  {
    value: 'entra',
    label: 'Microsoft Entra ID',
    protocol: 'oidc',
    issuer: 'https://login.microsoftonline.com/<tenant id>/v2.0',
    hint: 'Entra admin center → App registrations → New registration (Web). SAML: Enterprise applications → New application.',
  },
  {
    value: 'okta',
    label: 'Okta',
    protocol: 'oidc',
    issuer: 'https://<your domain>.okta.com',
    hint: 'Okta admin console → Applications → Create App Integration (OIDC Web Application, or SAML 2.0).',
  },
  {
    value: 'generic',
    label: 'Other OpenID Connect or SAML provider',
    protocol: 'oidc',
    issuer: '',
    hint: 'Any provider with OpenID Connect discovery, or SAML 2.0 metadata.',
  },
] as const;

export function meta() {
  return [{ title: 'Single sign-on · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, sso, groups] = await Promise.all([
    loadViewer(api),
    api.get<{ connection: Connection | null; addresses: Addresses }>('/auth/sso/connection'),
    api.call<{ data: { id: string; attributes: { name: string; built_in_behavior: string | null } }[] }>('GET', listPath('/user_groups')),
  ]);
  const userGroups = groups.ok ? groups.body.data.filter((g) => !g.attributes.built_in_behavior).map((g) => ({ id: g.id, name: g.attributes.name })) : [];
  return { viewer, connection: sso.connection, addresses: sso.addresses, groups: userGroups };
}

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  if (form.get('intent') === 'remove') {
    const res = await api.call('DELETE', '/auth/sso/connection');
    return data(
      { ok: res.ok, message: res.ok ? 'Single sign-on was removed; everyone signs in with a password again.' : res.problem.message },
      { status: res.ok ? 200 : res.problem.status },
    );
  }
  const protocol = text(form, 'protocol') === 'saml' ? 'saml' : 'oidc';
  const optional = (name: string) => text(form, name) || undefined;
  const body = {
    protocol,
    preset: text(form, 'preset') || 'generic',
    issuer: optional('issuer'),
    domains: text(form, 'domains')
      .split(/[\s,]+/)
      .filter(Boolean),
    require_sso: form.get('require_sso') === 'on',
    jit_role: form.get('jit') === 'on' ? text(form, 'jit_role') || 'viewer' : null,
    jit_group_ids: form.getAll('jit_group_ids').map(String),
    ...(protocol === 'oidc'
      ? { client_id: optional('client_id'), client_secret: optional('client_secret') }
      : { metadata_url: optional('metadata_url'), sso_url: optional('sso_url'), certificate: optional('certificate') }),
  };
  const res = await api.call('PUT', '/auth/sso/connection', { body });
  return data(
    { ok: res.ok, message: res.ok ? 'Saved. Users of these domains can now choose “Continue with single sign-on”.' : res.problem.message },
    { status: res.ok ? 200 : res.problem.status >= 500 ? 503 : res.problem.status },
  );
}

export default function SingleSignOn({ loaderData, actionData }: Route.ComponentProps) {
  const { viewer, connection: c, addresses: a, groups } = loaderData;
  const navigation = useNavigation();
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const [protocol, setProtocol] = useState<'oidc' | 'saml'>(c?.protocol ?? 'oidc');
  const [preset, setPreset] = useState<string>(c?.preset ?? 'google');
  const [jit, setJit] = useState(Boolean(c?.jit_role));
  const chosen = PRESETS.find((p) => p.value === preset) ?? PRESETS[3];
  return (
    <main className="page admin-page">
      <AdminHeader title="Single sign-on" viewer={viewer} lead="Let your organization sign in through its identity provider (OpenID Connect or SAML 2.0)." />
      {actionData ? (
        <div className={`alert ${actionData.ok ? 'alert--success' : 'alert--error'}`} role={actionData.ok ? 'status' : 'alert'} data-testid="sso-admin-message">
          {actionData.message}
        </div>
      ) : null}

      <section className="section" aria-labelledby="sso-addresses">
        <h2 id="sso-addresses">Addresses for your identity provider</h2>
        <div className="card">
          <dl className="facts">
            <div>
              <dt>OIDC redirect URI</dt>
              <dd>
                <code data-testid="sso-redirect-uri">{a.oidc_redirect_uri}</code>
              </dd>
            </div>
            <div>
              <dt>SAML assertion consumer service (ACS)</dt>
              <dd>
                <code data-testid="sso-acs-url">{a.saml_acs_url}</code>
              </dd>
            </div>
            <div>
              <dt>SAML entity id and metadata</dt>
              <dd>
                <code data-testid="sso-metadata-url">{a.saml_metadata_url}</code>
              </dd>
            </div>
          </dl>
        </div>
      </section>

      <section className="section" aria-labelledby="sso-settings">
        <h2 id="sso-settings">{c ? 'Connection' : 'Set up single sign-on'}</h2>
        <Form method="post" className="card form" aria-label="Single sign-on settings">
          <label className="field">
            <span className="field__label">Identity provider</span>
            <select name="preset" value={preset} onChange={(e) => setPreset(e.target.value)} data-testid="sso-preset">
              {PRESETS.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
            <span className="field__hint">{chosen.hint}</span>
          </label>
          <fieldset className="field">
            <legend className="field__label">Protocol</legend>
            <label>
              <input type="radio" name="protocol" value="oidc" checked={protocol === 'oidc'} onChange={() => setProtocol('oidc')} /> OpenID Connect
            </label>{' '}
            <label>
              <input
                type="radio"
                name="protocol"
                value="saml"
                checked={protocol === 'saml'}
                onChange={() => setProtocol('saml')}
                data-testid="sso-protocol-saml"
              />{' '}
              SAML 2.0
            </label>
          </fieldset>
          {protocol === 'oidc' ? (
            <>
              <label className="field">
                <span className="field__label">Issuer</span>
                <input name="issuer" defaultValue={c?.protocol === 'oidc' ? c.issuer : ''} placeholder={chosen.issuer} required />
              </label>
              <label className="field">
                <span className="field__label">Client id</span>
                <input name="client_id" defaultValue={c?.client_id ?? ''} required />
              </label>
              <label className="field">
                <span className="field__label">Client secret</span>
                <input
                  name="client_secret"
                  type="password"
                  autoComplete="off"
                  placeholder={c?.client_secret_set ? 'Stored (sealed); type a new one to replace it' : ''}
                  required={!c?.client_secret_set}
                />
              </label>
            </>
          ) : (
            <>
              <label className="field">
                <span className="field__label">IdP metadata URL</span>
                <input name="metadata_url" type="url" defaultValue={c?.metadata_url ?? ''} />
                <span className="field__hint">Read when you save: the entity id, sign-in address and signing certificate. Or fill them in below.</span>
              </label>
              <label className="field">
                <span className="field__label">IdP entity id (issuer)</span>
                <input name="issuer" defaultValue={c?.protocol === 'saml' ? c.issuer : ''} />
              </label>
              <label className="field">
                <span className="field__label">IdP sign-in URL (HTTP-Redirect)</span>
                <input name="sso_url" type="url" defaultValue={c?.sso_url ?? ''} />
              </label>
              <label className="field">
                <span className="field__label">IdP signing certificate (PEM)</span>
                <textarea name="certificate" rows={4} defaultValue={c?.certificate ?? ''} />
              </label>
            </>
          )}
          <label className="field">
            <span className="field__label">E-mail domains</span>
            <input name="domains" defaultValue={c?.domains.join(', ') ?? ''} placeholder="example.com, example.org" required data-testid="sso-domains" />
            <span className="field__hint">Addresses of these domains are offered single sign-on on the sign-in page.</span>
          </label>
          <label className="checkbox">
            <input type="checkbox" name="require_sso" defaultChecked={c?.require_sso ?? false} data-testid="sso-require" /> Require single sign-on (password
            sign-in and password reset are refused)
          </label>
          <label className="checkbox">
            <input type="checkbox" name="jit" checked={jit} onChange={(e) => setJit(e.target.checked)} data-testid="sso-jit" /> Create users on their first
            sign-in (just in time)
          </label>
          {jit ? (
            <>
              <label className="field">
                <span className="field__label">Role of new users</span>
                <select name="jit_role" defaultValue={c?.jit_role ?? 'viewer'}>
                  <option value="viewer">Viewer</option>
                  <option value="analyst">Analyst</option>
                </select>
              </label>
              {groups.length ? (
                <fieldset className="field">
                  <legend className="field__label">Groups of new users</legend>
                  {groups.map((g) => (
                    <label key={g.id} className="checkbox">
                      <input type="checkbox" name="jit_group_ids" value={g.id} defaultChecked={c?.jit_group_ids.includes(g.id)} /> {g.name}
                    </label>
                  ))}
                </fieldset>
              ) : null}
            </>
          ) : null}
          <div className="form__actions">
            <button type="submit" name="intent" value="save" className="button button--primary" disabled={saving} data-testid="sso-save">
              {saving ? 'Saving…' : 'Save'}
            </button>
          </div>
        </Form>
        {c ? (
          <Form method="post" className="form__actions">
            <button type="submit" name="intent" value="remove" className="button button--danger" disabled={saving}>
              Remove single sign-on
            </button>
          </Form>
        ) : null}
      </section>
    </main>
  );
}
