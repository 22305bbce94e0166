/**
 * `/app/administration/agents`: datasource agents, the small program that runs queries inside a
 * customer's network (agent/ in the repository). Create one (its secret key is shown once, with the
 * exact command that starts the agent), see whether each is connected, its version, address and
 * running queries, disable, enable or delete it. Reading needs View Datasources, changing needs
 * Manage Datasources (the API answers 403 otherwise, shown as the row's error).
 */
import type { ApiSchema } from '@cairn/client';
import { useEffect, useState } from 'react';
import { data, useFetcher, useRevalidator } from 'react-router';
import type { Route } from './+types/app.administration.agents';
import { AdminHeader } from '../components/admin/AdminNav';
import { answer, field, jsonapi, listPath, loadViewer, type ActionAnswer, type ListDoc } from '../components/admin/admin.server';
import { SecretShownOnce } from '../components/admin/SecretShownOnce';
import { ConfirmButton, formatDateTime, Pill, RowError } from '../components/admin/ui';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import type { ApiAnswer } from '../lib/types';
import '../components/admin/admin.css';
import { readForm } from '../lib/forms.server';

type AgentAttributes = ApiSchema<'DatasourceAgent'>['attributes'];

interface Created {
  name: string;
  command: string;
}

export function meta() {
  return [{ title: 'Agents · Cairn' }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const [viewer, agents] = await Promise.all([loadViewer(api), api.get<ListDoc<AgentAttributes>>(listPath('/datasource_agents?include=datasources'))]);
  const used = new Map<string, number>();
  for (const a of agents.data) used.set(a.id, ((a.relationships?.datasources?.data ?? []) as unknown[]).length);
  return { viewer, agents: agents.data.map((a) => ({ id: a.id, ...a.attributes, datasources: used.get(a.id) ?? 0 })) };
}

/** The command that starts the agent, with the values it needs (quoted for a POSIX shell). */
function startCommand(server: string, agentId: string, secret: string): string {
  return `npx cairn-agent --server ${server} --agent ${agentId} --secret '${secret}'`;
}

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = field(form, 'intent');
  const id = field(form, 'id');
  let out: ActionAnswer<Created>;
  if (intent === 'create') {
    const res = await api.call<ApiAnswer<'/datasource_agents', 'post', 201>>('POST', '/datasource_agents', {
      jsonapi: true,
      body: jsonapi('datasource_agents', { name: field(form, 'name') }),
    });
    out = answer(
      res,
      intent,
      undefined,
      res.ok
        ? {
            value: {
              name: res.body.data.attributes.name,
              command: startCommand(res.body.meta?.agent_server ?? '<API base URL>', res.body.data.attributes.agent_id, res.body.data.attributes.secret_key),
            },
          }
        : undefined,
    );
  } else if (intent === 'enable' || intent === 'disable') {
    out = answer(
      await api.call('PATCH', `/datasource_agents/${encodeURIComponent(id)}`, {
        jsonapi: true,
        body: jsonapi('datasource_agents', { enabled: intent === 'enable' }, id),
      }),
      intent,
      id,
      { message: intent === 'enable' ? 'Agent enabled: it may connect again.' : 'Agent disabled: its connection was closed and it is refused until enabled.' },
    );
  } else if (intent === 'delete') {
    out = answer(await api.call('DELETE', `/datasource_agents/${encodeURIComponent(id)}`), intent, id);
  } else {
    out = { ok: false, intent, error: `Unknown action "${intent}".` };
  }
  return data(out, { status: out.ok ? 200 : 422 });
}

function CreateAgent() {
  const fetcher = useFetcher<ActionAnswer<Created>>();
  const [formKey, setFormKey] = useState(0);
  const result = fetcher.data;
  const created = result?.ok && result.intent === 'create' ? result.value : undefined;
  useEffect(() => {
    if (fetcher.state === 'idle' && created) setFormKey((k) => k + 1);
  }, [fetcher.state, created]);
  return (
    <div className="card">
      <h3 className="card__title">New agent</h3>
      {created ? (
        <SecretShownOnce
          title={`Agent “${created.name}” created.`}
          warning="Copy the start command now: it holds the agent’s secret key, which Cairn shows only this once (it keeps only a hash)."
          value={created.command}
          hint={
            <>
              Run it in a checkout of Cairn (after <code>npm install</code>; Node.js 20 or newer) on a host inside your network that reaches the database;{' '}
              <code>npm run agent -- --server …</code> does the same. The agent connects out to Cairn; no port is opened.
            </>
          }
          testIds={{ box: 'new-agent', value: 'new-agent-command', copy: 'copy-agent-command' }}
        />
      ) : null}
      <fetcher.Form method="post" key={formKey} aria-label="Create an agent">
        <div className="form-grid">
          <label className="field">
            <span className="field__label">Name</span>
            <input name="name" required maxLength={200} placeholder="Where it runs: eu-west private subnet…" data-testid="agent-name" />
          </label>
        </div>
        <div className="form-actions">
          <button type="submit" name="intent" value="create" className="button button--primary" disabled={fetcher.state !== 'idle'} data-testid="agent-create">
            Create agent
          </button>
        </div>
        {result?.ok === false ? <RowError message={result.error} /> : null}
      </fetcher.Form>
    </div>
  );
}

type AgentView = Route.ComponentProps['loaderData']['agents'][number];

function AgentRow({ a }: { a: AgentView }) {
  const fetcher = useFetcher<ActionAnswer>();
  const busy = fetcher.state !== 'idle';
  return (
    <tr data-testid={`agent-${a.name}`}>
      <td>
        <div className="cell-main">{a.name}</div>
        <div className="cell-sub">
          <code>{a.agent_id}</code>
        </div>
      </td>
      <td>
        <Pill tone={!a.enabled ? 'bad' : a.connected ? 'ok' : 'plain'} testId="agent-status">
          {!a.enabled ? 'disabled' : a.connected ? 'connected' : 'not connected'}
        </Pill>
      </td>
      <td className="cell-sub">{a.version ?? '—'}</td>
      <td className="cell-sub">{a.address ?? '—'}</td>
      <td className="cell-sub" data-testid="agent-active">
        {a.active_queries}
      </td>
      <td className="cell-sub">{a.datasources}</td>
      <td className="cell-sub">{formatDateTime(a.created_at)}</td>
      <td className="cell-actions">
        <fetcher.Form method="post" className="row-actions">
          <input type="hidden" name="id" value={a.id} />
          <button type="submit" name="intent" value={a.enabled ? 'disable' : 'enable'} className="button button--small" disabled={busy}>
            {a.enabled ? 'Disable' : 'Enable'}
          </button>
          <ConfirmButton
            label="Delete"
            confirmLabel="Delete agent"
            question="Its connection is closed and the agent process stops."
            value="delete"
            disabled={busy}
          />
        </fetcher.Form>
        {fetcher.data?.ok === false ? <RowError message={fetcher.data.error} /> : null}
        {fetcher.data?.ok && fetcher.data.message && !busy ? (
          <p className="row-ok" role="status">
            {fetcher.data.message}
          </p>
        ) : null}
      </td>
    </tr>
  );
}

export default function Agents({ loaderData }: Route.ComponentProps) {
  const { viewer, agents } = loaderData;
  const canManage = viewer.permissions.includes('manage_datasources');
  // The state is the agents' own report: look again every few seconds while the page is open.
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    const t = setInterval(() => state === 'idle' && document.visibilityState === 'visible' && revalidate(), 5_000);
    return () => clearInterval(t);
  }, [revalidate, state]);
  return (
    <main className="page admin-page">
      <AdminHeader
        title="Agents"
        viewer={viewer}
        lead="An agent runs queries for datasources inside your own network: it connects out to Cairn, so no port needs opening. Datasources choose their agent under Connect through → Cairn agent."
      />
      {canManage ? <CreateAgent /> : null}
      <section className="section" aria-labelledby="agents">
        <h2 id="agents">{agents.length === 1 ? '1 agent' : `${agents.length} agents`}</h2>
        <div className="data-table-wrap">
          <table className="data-table" data-testid="agents-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>State</th>
                <th>Version</th>
                <th>Address</th>
                <th>Active queries</th>
                <th>Datasources</th>
                <th>Created</th>
                <th className="cell-actions">Actions</th>
              </tr>
            </thead>
            <tbody>
              {agents.length ? (
                agents.map((a) => <AgentRow key={a.id} a={a} />)
              ) : (
                <tr>
                  <td colSpan={8} className="empty-row">
                    No agents yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/', label: 'Back to dashboards' }} />;
}
