/**
 * Edit mode's SQL snippets tab: the organization's snippets (they are shared by every dashboard) —
 * create, edit (name, description, text, params, datasource) and delete. The API refuses cycles and
 * deleting a snippet that is still used (422); its message is shown.
 */
import type { ApiSchema } from '@cairn/client';
import { useEffect, useState } from 'react';
import { useFetcher, useRouteLoaderData } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.edit.snippets';
import { FieldErrors, FormErrors, SelectField, TextField } from '../components/editor/Field';
import { requireApi } from '../lib/api.server';
import { listAll, write } from '../lib/editor.server';
import {
  errorsByField,
  formFromAttributes,
  snippetBody,
  SNIPPET_FIELDS,
  unplacedErrors,
  type ApiErrorItem,
  type FormState,
  type ResourceBody,
} from '../lib/editor-forms';
import type { EditData } from './app.dashboard.$id.edit';

type SnippetAttributes = ApiSchema<'SqlSnippet'>['attributes'];

export async function loader({ request, context }: Route.LoaderArgs) {
  const list = await listAll<SnippetAttributes>(requireApi(request, context), '/sql_snippets');
  return {
    snippets: list.map((s) => {
      const ds = (s.relationships?.datasource?.data ?? null) as { id?: string } | null;
      const uses = s.relationships?.sql_snippets?.data;
      return { id: s.id, attributes: s.attributes, datasource: ds?.id ?? null, uses: Array.isArray(uses) ? uses.length : 0 };
    }),
  };
}

type Payload = { intent: 'create' | 'update'; id?: string; body: ResourceBody } | { intent: 'delete'; id: string };

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const p = (await request.json().catch(() => null)) as Payload | null;
  if (!p) return { intent: 'unknown', errors: [{ detail: 'The page sent a body the app cannot read.' }] as ApiErrorItem[] };
  let res;
  if (p.intent === 'create') res = await write(api, 'POST', '/sql_snippets', p.body);
  else if (p.intent === 'update' && p.id) res = await write(api, 'PATCH', `/sql_snippets/${encodeURIComponent(p.id)}`, p.body);
  else if (p.intent === 'delete') res = await write(api, 'DELETE', `/sql_snippets/${encodeURIComponent(p.id)}`);
  else return { intent: 'unknown', errors: [{ detail: 'Unknown action.' }] as ApiErrorItem[] };
  return res.ok
    ? { intent: p.intent, id: 'id' in p ? p.id : undefined, ok: true as const }
    : { intent: p.intent, id: 'id' in p ? p.id : undefined, errors: res.errors };
}

type Editing = { mode: 'create' } | { mode: 'update'; id: string } | null;

export default function SnippetsTab({ loaderData }: Route.ComponentProps) {
  const { datasources } = useRouteLoaderData('routes/app.dashboard.$id.edit') as EditData;
  const { snippets } = loaderData;
  const fetcher = useFetcher<{ intent: string; id?: string; ok?: boolean; errors?: ApiErrorItem[] }>();
  const [editing, setEditing] = useState<Editing>(null);
  const last = fetcher.data;
  const busy = fetcher.state !== 'idle';
  useEffect(() => {
    if (fetcher.state === 'idle' && last?.ok && last.intent !== 'delete') setEditing(null);
  }, [fetcher.state, last]);
  const send = (payload: Payload) => fetcher.submit(payload as never, { method: 'post', encType: 'application/json' });
  const current = editing?.mode === 'update' ? (snippets.find((s) => s.id === editing.id) ?? null) : null;
  const formErrors = last && !last.ok && last.intent !== 'delete' ? errorsByField(last.errors) : {};
  const deleteError = last && !last.ok && last.intent === 'delete' ? { id: last.id, messages: (last.errors ?? []).map((e) => e.detail ?? 'Refused.') } : null;

  return (
    <section data-testid="snippets-tab">
      <div className="edit-toolbar">
        <p className="muted small">
          Snippets belong to the organization: every report, filter and alert can use them as <code>[name]</code>.
        </p>
        <span className="spacer" />
        <button
          type="button"
          className="button button--primary"
          onClick={() => setEditing({ mode: 'create' })}
          disabled={editing?.mode === 'create'}
          data-testid="add-snippet"
        >
          + New snippet
        </button>
      </div>
      {editing ? (
        <SnippetForm
          key={current?.id ?? 'new'}
          mode={editing.mode}
          initial={
            current
              ? { ...formFromAttributes(SNIPPET_FIELDS, current.attributes as unknown as Record<string, unknown>), datasource: current.datasource ?? '' }
              : { name: '', description: '', text: '', params: '', datasource: '' }
          }
          datasources={datasources}
          errors={formErrors}
          busy={busy}
          onCancel={() => setEditing(null)}
          onSubmit={(form) =>
            current
              ? send({
                  intent: 'update',
                  id: current.id,
                  body: snippetBody(form, {
                    mode: 'update',
                    id: current.id,
                    original: current.attributes as unknown as Record<string, unknown>,
                    originalDatasourceId: current.datasource,
                  }),
                })
              : send({ intent: 'create', body: snippetBody(form, { mode: 'create' }) })
          }
        />
      ) : null}
      {snippets.length === 0 ? <p className="muted">No snippets yet.</p> : null}
      <ul className="resource-list" data-testid="snippet-list">
        {snippets.map((s) => (
          <li key={s.id} className="resource-row" data-testid={`snippet-row-${s.attributes.name}`}>
            <div className="resource-row__main">
              <div className="resource-row__title">
                <code>
                  [{s.attributes.name}
                  {s.attributes.params.length ? `(${s.attributes.params.join(', ')})` : ''}]
                </code>
              </div>
              <div className="resource-row__meta">{s.attributes.description || s.attributes.text.slice(0, 120)}</div>
              {deleteError?.id === s.id ? (
                <p className="field__error" role="alert" data-testid="snippet-delete-error">
                  {deleteError.messages.join(' ')}
                </p>
              ) : null}
            </div>
            <div className="resource-row__actions">
              <button
                type="button"
                className="button button--small"
                onClick={() => setEditing({ mode: 'update', id: s.id })}
                data-testid={`edit-snippet-${s.attributes.name}`}
              >
                Edit
              </button>
              <button
                type="button"
                className="button button--ghost button--small"
                disabled={busy}
                onClick={() => window.confirm(`Delete the snippet [${s.attributes.name}]?`) && send({ intent: 'delete', id: s.id })}
                data-testid={`delete-snippet-${s.attributes.name}`}
              >
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SnippetForm({
  mode,
  initial,
  datasources,
  errors,
  busy,
  onSubmit,
  onCancel,
}: {
  mode: 'create' | 'update';
  initial: FormState;
  datasources: { id: string; name: string }[];
  errors: Record<string, string[]>;
  busy: boolean;
  onSubmit(form: FormState): void;
  onCancel(): void;
}) {
  const [form, setForm] = useState<FormState>(initial);
  const set = (k: string, v: string) => setForm((f) => ({ ...f, [k]: v }));
  const str = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
  return (
    <form
      className="editor-form"
      data-testid="snippet-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(form);
      }}
    >
      <h3>{mode === 'create' ? 'New SQL snippet' : `Snippet [${str('name')}]`}</h3>
      <FormErrors messages={unplacedErrors(errors, ['name', 'description', 'text', 'params', 'datasource', 'sql_snippets'])} />
      <div className="field-row">
        <TextField
          name="name"
          label="Name"
          hint="Letters, digits and underscore; used as [name]."
          value={str('name')}
          onChange={(v) => set('name', v)}
          errors={errors}
          required
        />
        <TextField
          name="params"
          label="Parameters"
          hint="Names, comma-separated; write {{name}} in the text and call [snippet(value, …)]."
          value={str('params')}
          onChange={(v) => set('params', v)}
          errors={errors}
        />
      </div>
      <TextField name="description" label="Description" value={str('description')} onChange={(v) => set('description', v)} errors={errors} />
      <TextField name="text" label="SQL text" value={str('text')} onChange={(v) => set('text', v)} errors={errors} multiline rows={6} mono required />
      <FieldErrors name="sql_snippets" errors={errors} />
      <SelectField
        name="datasource"
        label="Datasource (optional)"
        hint="Link it when its SQL only works in that database."
        value={str('datasource')}
        onChange={(v) => set('datasource', v)}
        errors={errors}
        options={[{ value: '', label: 'Any' }, ...datasources.map((d) => ({ value: d.id, label: d.name }))]}
      />
      <div className="editor-form__actions">
        <button type="submit" className="button button--primary" disabled={busy} data-testid="snippet-save">
          {busy ? 'Saving…' : mode === 'create' ? 'Create snippet' : 'Save snippet'}
        </button>
        <button type="button" className="button button--ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
