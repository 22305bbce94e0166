/**
 * `/app/dashboards/{id}/share/links/{linkId|new}`: create or edit a sharing link with every option of
 * the spec, copy its public address, and read or roll its sharing secret (for signed embedding URLs).
 */
import { data, Form, Link, redirect, useFetcher, useNavigation, useSearchParams } from 'react-router';
import type { ApiSchema } from '@cairn/client';
import type { Route } from './+types/app.dashboard.$id.share.link';
import { answer, field, jsonapi, type ActionAnswer } from '../components/admin/admin.server';
import { CopyButton, RowError } from '../components/admin/ui';
import { attributesFromForm, LINK_DEFAULTS, LinkOptions, type LinkAttributes } from '../components/sharing/LinkOptions';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { clientAddress } from '../lib/client-address.server';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

type SecretAnswer = ApiSchema<'SharingSecret'>;

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d?.link ? `${d.link.name} · Sharing link · Cairn` : 'New sharing link · Cairn' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const clientIp = clientAddress(request);
  const origin = new URL(request.url).origin;
  if (params.linkId === 'new') {
    const dash = await api.get<{ data: { id: string; attributes: { name: string } } }>(`/dashboards/${encodeURIComponent(params.id)}`);
    return { origin, clientIp, dashboard: { id: dash.data.id, name: dash.data.attributes.name }, link: null, secret: null };
  }
  const [doc, secret] = await Promise.all([
    api.get<{
      data: { id: string; attributes: LinkAttributes; relationships?: { dashboard?: { data?: { id: string } } } };
      included?: { id: string; type: string; attributes: { name?: string } }[];
    }>(`/dashboard_sharing_links/${encodeURIComponent(params.linkId)}?include=dashboard`),
    api.call<SecretAnswer>('GET', `/dashboard_sharing_links/${encodeURIComponent(params.linkId)}/sharing_secret`),
  ]);
  const dashboardId = doc.data.relationships?.dashboard?.data?.id ?? params.id;
  // A link lives under its own dashboard's address.
  if (dashboardId !== params.id) throw redirect(`/app/dashboards/${encodeURIComponent(dashboardId)}/share/links/${encodeURIComponent(doc.data.id)}`);
  const dashName = doc.included?.find((r) => r.type === 'dashboards')?.attributes.name ?? dashboardId;
  return {
    origin,
    clientIp,
    dashboard: { id: dashboardId, name: dashName },
    link: { id: doc.data.id, ...doc.data.attributes },
    secret: secret.ok ? secret.body.sharing_secret : null,
  };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  const base = `/app/dashboards/${encodeURIComponent(params.id)}/share`;
  if (intent === 'roll-secret') {
    const res = await api.call<SecretAnswer>('POST', `/dashboard_sharing_links/${encodeURIComponent(params.linkId)}/sharing_secret`);
    return data(answer(res, intent, params.linkId, { message: 'A new sharing secret is in force; URLs signed with the old one no longer open.' }), {
      status: res.ok ? 200 : 422,
    });
  }
  const attributes = attributesFromForm(form);
  if (params.linkId === 'new') {
    const res = await api.call<{ data: { id: string } }>('POST', '/dashboard_sharing_links', {
      jsonapi: true,
      body: jsonapi('dashboard_sharing_links', attributes, undefined, { dashboard: { data: { type: 'dashboards', id: params.id } } }),
    });
    if (res.ok) return redirect(`${base}/links/${encodeURIComponent(res.body.data.id)}?created=1`);
    return data<ActionAnswer>({ ok: false, intent: 'save', error: res.problem.message }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
  }
  const res = await api.call('PATCH', `/dashboard_sharing_links/${encodeURIComponent(params.linkId)}`, {
    jsonapi: true,
    body: jsonapi('dashboard_sharing_links', attributes, params.linkId),
  });
  return data(answer(res, 'save', params.linkId, { message: 'Saved.' }), { status: res.ok ? 200 : res.problem.status >= 500 ? 503 : res.problem.status });
}

/** The embedding snippet of the docs (embedding/overview): the link in a borderless, lazily loaded iframe. */
function iframeCode(url: string, title: string): string {
  const safe = title.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
  return `<iframe src="${url}" title="${safe}" width="100%" height="900" style="border: 0" loading="lazy"></iframe>`;
}

function SecretPanel({ secret, required }: { secret: string | null; required: boolean }) {
  const fetcher = useFetcher<ActionAnswer>();
  return (
    <section className="card" aria-labelledby="secret" style={{ marginTop: 16 }}>
      <h3 className="card__title" id="secret">
        Sharing secret
      </h3>
      <p className="muted small">
        {required
          ? 'This link opens only with an address your server signed with this secret: HMAC-SHA256 over the path and the sorted query, with an expiry (see the embedding docs). Keep the secret on your server.'
          : 'Turn on “Sharing secret required” to make this link open only with addresses your server signs with this secret.'}
      </p>
      {secret ? (
        <div className="copy-field">
          <code data-testid="sharing-secret">{secret}</code>
          <CopyButton text={secret} testId="copy-secret" />
        </div>
      ) : (
        <p className="small">No secret generated yet.</p>
      )}
      <fetcher.Form method="post" className="form-actions">
        <button type="submit" name="intent" value="roll-secret" className="button button--small" disabled={fetcher.state !== 'idle'} data-testid="roll-secret">
          {secret ? 'Roll the secret' : 'Generate a secret'}
        </button>
        {fetcher.data?.ok ? (
          <span className="row-ok" role="status">
            {fetcher.data.message}
          </span>
        ) : null}
      </fetcher.Form>
      {fetcher.data?.ok === false ? <RowError message={fetcher.data.error} /> : null}
    </section>
  );
}

export default function LinkEditor({ loaderData, actionData }: Route.ComponentProps) {
  const { dashboard, link, secret, origin, clientIp } = loaderData;
  const navigation = useNavigation();
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  const base = `/app/dashboards/${encodeURIComponent(dashboard.id)}`;
  const url = link ? `${origin}/s/${link.token}` : null;
  const [search] = useSearchParams();
  const created = search.has('created');
  return (
    <main className="page page--narrow">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={base}>{dashboard.name}</Link> <span aria-hidden="true">/</span> <Link to={`${base}/share`}>Share</Link> <span aria-hidden="true">/</span>{' '}
        <span>{link ? link.name : 'New link'}</span>
      </nav>
      <header className="page-header">
        <div>
          <p className="eyebrow">Sharing link</p>
          <h1>{link ? link.name : 'New sharing link'}</h1>
        </div>
      </header>
      {created ? (
        <p className="alert alert--ok flash" role="status">
          The link was created. Copy its address below.
        </p>
      ) : null}
      {url ? (
        <div className="card" style={{ marginBottom: 16 }}>
          <span className="field__label">Public address</span>
          <div className="copy-field" style={{ marginTop: 8 }}>
            <code data-testid="public-url">{url}</code>
            <CopyButton text={url} testId="copy-public-url" />
            <CopyButton text={iframeCode(url, dashboard.name)} label="Copy iframe code" testId="copy-iframe" />
            <a className="button button--small" href={url} target="_blank" rel="noreferrer">
              Open
            </a>
          </div>
        </div>
      ) : null}
      <Form method="post" className="card" aria-label="Sharing link options" key={link?.id ?? 'new'}>
        <LinkOptions link={link ?? { ...LINK_DEFAULTS, name: '' }} clientIp={clientIp} />
        <div className="form-actions">
          <button type="submit" name="intent" value="save" className="button button--primary" disabled={saving} data-testid="link-save">
            {saving ? 'Saving…' : link ? 'Save' : 'Create link'}
          </button>
          <Link to={`${base}/share`} className="button button--ghost">
            Back to sharing
          </Link>
          {actionData?.ok && actionData.intent === 'save' ? (
            <span className="row-ok" role="status" data-testid="link-saved">
              {actionData.message}
            </span>
          ) : null}
        </div>
        {actionData && !actionData.ok ? <RowError message={actionData.error} /> : null}
      </Form>
      {link ? <SecretPanel secret={secret} required={link.sharing_secret_required} /> : null}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
