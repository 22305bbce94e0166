/**
 * `/app/dashboards/{id}/share`: who sees the dashboard inside the organization (share mode and groups)
 * and its public sharing links (list, copy, edit, delete; new links through the link editor). Needs
 * Manage Dashboards on the dashboard: the API answers 403 to everyone else and the page shows it.
 */
import { data, Link, useFetcher } from 'react-router';
import type { ApiSchema } from '@cairn/client';
import type { ResourceObject } from '@cairn/core';
import type { Route } from './+types/app.dashboard.$id.share';
import { answer, field, fields, listPath, relatedIds, type ActionAnswer, type ListDoc } from '../components/admin/admin.server';
import { ConfirmButton, CopyButton, formatDate, Pill, RowError } from '../components/admin/ui';
import { optionWords, type LinkAttributes } from '../components/sharing/LinkOptions';
import { ShareDialog } from '../components/sharing/ShareDialog';
import { shareNoticeOf, shareSavedMessage } from '../components/sharing/share-notice';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import type { DashboardAttributes, SingleDocument } from '../lib/types';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d ? `Share ${d.dashboard.name} · Cairn` : 'Share · Cairn' }];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [doc, groups] = await Promise.all([
    api.get<SingleDocument<Pick<DashboardAttributes, 'name' | 'share_mode' | 'is_locked'>>>(
      `/dashboards/${encodeURIComponent(params.id)}?include=dashboard_sharing_links,user_groups`,
    ),
    api.call<ListDoc<Pick<ApiSchema<'UserGroup'>['attributes'], 'name'>>>('GET', listPath('/user_groups')),
  ]);
  const links = (doc.included ?? []).filter((r) => r.type === 'dashboard_sharing_links') as unknown as ResourceObject<LinkAttributes>[];
  return {
    origin: new URL(request.url).origin,
    dashboard: { id: doc.data.id, name: doc.data.attributes.name, mode: doc.data.attributes.share_mode, locked: doc.data.attributes.is_locked },
    groupIds: relatedIds(doc.data, 'user_groups'),
    groups: groups.ok ? groups.body.data.map((g) => ({ id: g.id, name: g.attributes.name })) : [],
    links: links.map((l) => ({ id: l.id, ...l.attributes })),
  };
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  let out: ActionAnswer;
  if (intent === 'share') {
    const mode = field(form, 'share_mode');
    const res = await api.call('POST', `/dashboards/${encodeURIComponent(params.id)}/share`, {
      body: {
        share_mode: mode,
        ...(mode === 'custom' ? { user_group_ids: fields(form, 'group') } : {}),
        notify_new_users: form.get('notify_new_users') === 'on',
      },
    });
    out = answer(res, intent, params.id, { message: shareSavedMessage(res.ok ? shareNoticeOf(res.body) : null) });
  } else if (intent === 'delete-link') {
    const id = field(form, 'id');
    out = answer(await api.call('DELETE', `/dashboard_sharing_links/${encodeURIComponent(id)}`), intent, id);
  } else {
    out = { ok: false, intent, error: `Unknown action "${intent}".` };
  }
  return data(out, { status: out.ok ? 200 : 422 });
}

type LinkView = Route.ComponentProps['loaderData']['links'][number];

function LinkRow({ link, origin, dashboardId }: { link: LinkView; origin: string; dashboardId: string }) {
  const fetcher = useFetcher<ActionAnswer>();
  const url = `${origin}/s/${link.token}`;
  return (
    <tr data-testid={`link-${link.name}`}>
      <td>
        <div className="cell-main">{link.name}</div>
        {link.description ? <div className="cell-sub">{link.description}</div> : null}
      </td>
      <td>
        <div className="copy-field">
          <code data-testid="link-url">{url}</code>
          <CopyButton text={url} testId="copy-link" />
        </div>
      </td>
      <td>
        <div className="option-summary">
          {optionWords(link).map((w) => (
            <Pill key={w} tone={w === 'password' || w === 'IP allow-list' || w === 'signed' ? 'info' : 'plain'}>
              {w}
            </Pill>
          ))}
        </div>
      </td>
      <td className="cell-sub">{formatDate(link.created_at)}</td>
      <td className="cell-actions">
        <fetcher.Form method="post" className="row-actions">
          <input type="hidden" name="id" value={link.id} />
          <Link className="button button--small" to={`/app/dashboards/${encodeURIComponent(dashboardId)}/share/links/${encodeURIComponent(link.id)}`}>
            Edit
          </Link>
          <ConfirmButton
            label="Delete"
            confirmLabel="Delete link"
            question="Its address stops working at once."
            value="delete-link"
            disabled={fetcher.state !== 'idle'}
          />
        </fetcher.Form>
        {fetcher.data?.ok === false ? <RowError message={fetcher.data.error} /> : null}
      </td>
    </tr>
  );
}

export default function Share({ loaderData }: Route.ComponentProps) {
  const { dashboard, groups, groupIds, links, origin } = loaderData;
  const base = `/app/dashboards/${encodeURIComponent(dashboard.id)}`;
  return (
    <main className="page admin-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span> <Link to={base}>{dashboard.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span>Share</span>
      </nav>
      <header className="page-header">
        <div>
          <p className="eyebrow">Sharing</p>
          <h1>Share “{dashboard.name}”</h1>
        </div>
      </header>

      <ShareDialog action={`${base}/share`} state={{ mode: dashboard.mode, groupIds }} groups={groups} locked={dashboard.locked} />

      <section className="section" aria-labelledby="links">
        <h2 id="links">Sharing links</h2>
        <p className="section__lead">
          A sharing link opens the dashboard for anyone who has its address, without an account: for wall screens, partners and embedding. Each link has its own
          options; delete a link to revoke it.
        </p>
        <div className="data-table-wrap">
          <table className="data-table" data-testid="links-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Address</th>
                <th>Options</th>
                <th>Created</th>
                <th className="cell-actions">Actions</th>
              </tr>
            </thead>
            <tbody>
              {links.length ? (
                links.map((l) => <LinkRow key={l.id} link={l} origin={origin} dashboardId={dashboard.id} />)
              ) : (
                <tr>
                  <td colSpan={5} className="empty-row">
                    No sharing links yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <p className="form-actions">
          <Link className="button button--primary" to={`${base}/share/links/new`} data-testid="new-link">
            New sharing link
          </Link>
        </p>
      </section>

      <section className="section" aria-labelledby="schedules">
        <h2 id="schedules">Scheduled e-mails</h2>
        <p className="section__lead">Send the dashboard, or one of its reports, by e-mail at set times, or at once with “Send now”.</p>
        <p className="form-actions">
          <Link className="button" to={`${base}/schedules`} data-testid="open-schedules">
            Scheduled e-mails
          </Link>
        </p>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
