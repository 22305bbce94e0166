/**
 * `/app/datasources/new` and `/app/datasources/{id}`: create or edit a datasource (admins), test its
 * connection, browse its schema, delete it (refused with the API's reason while something uses it).
 */
import { Link, redirect, useFetcher } from 'react-router';
import type { Route } from './+types/app.datasources.form';
import { DatasourceForm } from '../components/datasources/DatasourceForm';
import { SchemaBrowser } from '../components/datasources/SchemaBrowser';
import { FormErrors } from '../components/editor/Field';
import { ErrorPage } from '../components/ErrorPage';
import { requireApi } from '../lib/api.server';
import { callMissing, can, errorItems, listAll, requireGrant, write } from '../lib/editor.server';
import { DATABASE_LABELS, datasourceBody, datasourceFields, newDatasourceForm, type ConnectionMode, type DatabaseType } from '../lib/editor-datasources';
import { errorsByField, formFromAttributes, type ApiErrorItem, type FormState, type ResourceBody } from '../lib/editor-forms';
import type { SingleDocument } from '../lib/types';
import '../components/editor/editor.css';

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d?.datasource ? `${d.datasource.attributes.name} · Datasources · Cairn` : 'New datasource · Cairn' }];
}

type Attributes = Record<string, unknown> & { name: string; database_type: DatabaseType; connection_mode: ConnectionMode; is_sample?: boolean };

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = requireApi(request, context);
  const session = await requireGrant(api, 'view_datasources', 'Your role cannot see the organization’s datasources.');
  const canManage = can(session, 'manage_datasources');
  if (!params.id && !canManage) {
    await requireGrant(api, 'manage_datasources', 'Only administrators can add datasources.');
  }
  const doc = params.id ? await api.get<SingleDocument<Attributes>>(`/datasources/${encodeURIComponent(params.id)}`) : null;
  const agents = canManage ? await listAll<{ name: string; connected: boolean }>(api, '/datasource_agents').catch(() => []) : [];
  // The organization's SSH public key for ssh_tunnel (D51); GET /organization needs Manage Users (admins).
  const sshPublicKey = canManage
    ? await api
        .get<SingleDocument<{ ssh_public_key?: string }>>('/organization')
        .then((o) => o.data.attributes.ssh_public_key ?? null)
        .catch(() => null)
    : null;
  const d = doc?.data ?? null;
  return {
    canManage,
    datasource: d ? { id: d.id, attributes: d.attributes, agents: ((d.relationships?.agents?.data ?? []) as { id: string }[]).map((x) => x.id) } : null,
    agents: agents.map((a) => ({ id: a.id, name: a.attributes.name, connected: a.attributes.connected })),
    sshPublicKey,
    created: new URL(request.url).searchParams.get('created') === '1',
  };
}

type Payload = { intent: 'save'; body: ResourceBody } | { intent: 'test'; body?: ResourceBody } | { intent: 'delete' };

/** The form waits this long for a test (the API gives up after 10 s; the rest is the way there and back). */
const TEST_WAIT_MS = 12_000;
const NO_ANSWER = 'No answer within 10 seconds: check the host and the port, and that Cairn may reach the database’s network.';

/** Races a call with the test's wait; a call still open then is answered with the plain message. */
async function withinTestWait<T>(work: Promise<T>): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), TEST_WAIT_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
export type DatasourceAction =
  | { intent: 'save' | 'delete'; errors: ApiErrorItem[] }
  | { intent: 'save'; ok: true }
  | { intent: 'test'; status: 'ok' | 'error' | 'unavailable'; message: string | null };

export async function action({ request, context, params }: Route.ActionArgs): Promise<DatasourceAction | Response> {
  const api = requireApi(request, context);
  const p = (await request.json().catch(() => null)) as Payload | null;
  const id = params.id ? encodeURIComponent(params.id) : null;
  if (p?.intent === 'save') {
    const res = id ? await write(api, 'PATCH', `/datasources/${id}`, p.body) : await write<{ data: { id: string } }>(api, 'POST', '/datasources', p.body);
    if (!res.ok) return { intent: 'save', errors: res.errors };
    if (!id) return redirect(`/app/datasources/${encodeURIComponent((res.body as { data: { id: string } }).data.id)}?created=1`);
    return { intent: 'save', ok: true };
  }
  if (p?.intent === 'test') {
    // What is in the form: unsaved settings (a new datasource, or an existing one's edits over its stored ones).
    const sent = p.body ?? { data: { type: 'datasources', ...(id ? { id: params.id } : {}), attributes: {} } };
    const res = await withinTestWait(api.raw('POST', '/datasources/test_connection', { body: sent, jsonapi: true }));
    if (res === 'timeout') return { intent: 'test', status: 'error', message: NO_ANSWER };
    if (callMissing(res.status, res.body))
      return { intent: 'test', status: 'unavailable', message: 'Testing the connection is not available on this server yet.' };
    if (res.status >= 500)
      return { intent: 'test', status: 'error', message: 'The test could not be finished: the Cairn API did not answer. Try again in a moment.' };
    if (res.status < 200 || res.status >= 300) {
      const items = errorItems(res.status, res.body);
      return {
        intent: 'test',
        status: 'error',
        message:
          items
            .map((e) => e.detail)
            .filter(Boolean)
            .join(' ') || `The API answered ${res.status}.`,
      };
    }
    const body = res.body as { status?: string; error_message?: string | null };
    return { intent: 'test', status: body.status === 'ok' ? 'ok' : 'error', message: body.error_message ?? null };
  }
  if (p?.intent === 'delete' && id) {
    const res = await write(api, 'DELETE', `/datasources/${id}`);
    if (!res.ok) return { intent: 'delete', errors: res.errors };
    return redirect('/app/datasources');
  }
  return { intent: 'save', errors: [{ detail: 'The page sent a request the app cannot use.' }] };
}

function initialForm(d: { attributes: Attributes; agents: string[] } | null): FormState {
  if (!d) return newDatasourceForm('postgres');
  const a = d.attributes;
  const specs = [
    { name: 'name', kind: 'text' as const },
    { name: 'connection_mode', kind: 'text' as const },
    ...datasourceFields(a.database_type, a.connection_mode, a.databricks_auth_mode === 'oauth_m2m' ? 'oauth_m2m' : 'pat'),
  ];
  const form: FormState = { ...newDatasourceForm(a.database_type), ...formFromAttributes(specs, a), database_type: a.database_type, agents: d.agents };
  if (typeof a.databricks_auth_expires_at === 'string') form.databricks_auth_expires_at = a.databricks_auth_expires_at.slice(0, 16);
  return form;
}

export default function DatasourcePage({ loaderData }: Route.ComponentProps) {
  const { datasource, canManage, agents, sshPublicKey, created } = loaderData;
  const save = useFetcher<DatasourceAction>({ key: 'datasource-save' });
  const test = useFetcher<DatasourceAction>({ key: 'datasource-test' });
  const remove = useFetcher<DatasourceAction>({ key: 'datasource-delete' });
  const a = datasource?.attributes;
  const sample = Boolean(a?.is_sample);
  const saveErrors = save.data && 'errors' in save.data ? errorsByField(save.data.errors) : {};
  const testResult = test.data?.intent === 'test' ? test.data : null;
  const deleteErrors = remove.data && 'errors' in remove.data ? remove.data.errors.map((e) => e.detail ?? e.code ?? 'Refused.') : [];
  const original = datasource ? { ...datasource.attributes } : {};

  // A new test hides the previous result until it answers.
  const testing = test.state !== 'idle';
  const bodyOf = (form: FormState) =>
    datasource
      ? datasourceBody(form, { mode: 'update', id: datasource.id, original, originalAgents: datasource.agents })
      : datasourceBody(form, { mode: 'create' });
  const runTest = (form: FormState) => {
    test.submit({ intent: 'test', body: bodyOf(form) } as never, { method: 'post', encType: 'application/json' });
  };

  const submit = (form: FormState) => {
    const body = bodyOf(form);
    save.submit({ intent: 'save', body } as never, { method: 'post', encType: 'application/json' });
  };

  return (
    <main className="page page--narrow" data-testid="datasource-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/datasources">Datasources</Link> <span aria-hidden="true">/</span> <span>{a ? a.name : 'New datasource'}</span>
      </nav>
      <header className="page-header">
        <div>
          <p className="eyebrow">{a ? (DATABASE_LABELS[a.database_type] ?? a.database_type) : 'Datasource'}</p>
          <h1>{a ? a.name : 'New datasource'}</h1>
        </div>
      </header>
      {created ? (
        <p className="notice" role="status">
          Datasource created. Test the connection to check the settings.
        </p>
      ) : null}
      {sample ? <p className="notice">This is the built-in Sample data datasource: it cannot be changed or deleted.</p> : null}
      {save.data?.intent === 'save' && 'ok' in save.data ? (
        <p className="badge badge--ok" role="status" data-testid="datasource-saved">
          Saved
        </p>
      ) : null}
      <DatasourceForm
        key={datasource ? `${datasource.id}:${String(datasource.attributes.updated_at ?? '')}` : 'new'}
        mode={datasource ? 'update' : 'create'}
        initial={initialForm(datasource)}
        stored={{ password: a?.password_set === true, serviceKey: a?.bigquery_service_key_set === true }}
        agents={agents}
        sshPublicKey={sshPublicKey}
        errors={saveErrors}
        busy={save.state !== 'idle'}
        readOnly={!canManage || sample}
        onSubmit={submit}
        onTest={canManage ? runTest : undefined}
        testing={testing}
        testResult={
          testResult && !testing ? (
            <div
              className={`test-result test-result--${testResult.status === 'ok' ? 'ok' : 'error'}`}
              role={testResult.status === 'ok' ? 'status' : 'alert'}
              data-testid="test-result"
              data-status={testResult.status}
            >
              <strong>
                {testResult.status === 'ok'
                  ? 'Connected: Cairn can reach this database.'
                  : testResult.status === 'unavailable'
                    ? 'Not available'
                    : 'The connection failed.'}
              </strong>
              {testResult.message ? <pre data-testid="test-error">{testResult.message}</pre> : null}
            </div>
          ) : testing ? (
            <p className="muted small" role="status" data-testid="test-running">
              Testing the connection (at most 10 seconds)…
            </p>
          ) : null
        }
      />
      {datasource ? (
        <>
          {!canManage ? <p className="muted small">Administrators can test the connection.</p> : null}
          <SchemaBrowser
            datasourceId={datasource.id}
            defaultSchema={typeof a?.default_schema_name === 'string' ? a.default_schema_name : null}
            canRefresh={canManage}
          />
          {canManage && !sample ? (
            <section className="editor-form" aria-label="Delete">
              <h3 style={{ margin: 0 }}>Delete this datasource</h3>
              <p className="muted small">Only possible while no report, filter or SQL alert uses it.</p>
              <FormErrors messages={deleteErrors} />
              <div>
                <button
                  type="button"
                  className="button button--danger"
                  disabled={remove.state !== 'idle'}
                  onClick={() =>
                    window.confirm(`Delete the datasource “${a?.name}”?`) &&
                    remove.submit({ intent: 'delete' } as never, { method: 'post', encType: 'application/json' })
                  }
                  data-testid="delete-datasource"
                >
                  Delete datasource
                </button>
              </div>
            </section>
          ) : null}
        </>
      ) : null}
    </main>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} home={{ href: '/app/datasources', label: 'Back to datasources' }} />;
}
