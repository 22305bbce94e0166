/**
 * Edit mode's Filters tab: the dashboard's filters in filter-bar order — create (attached to this
 * dashboard), edit, reorder, detach, delete — and attaching a filter of the organization that another
 * dashboard already uses.
 */
import { useEffect, useState } from 'react';
import { useFetcher, useRouteLoaderData } from 'react-router';
import type { Route } from './+types/app.dashboard.$id.edit.filters';
import { FilterForm } from '../components/editor/FilterForm';
import { FormErrors } from '../components/editor/Field';
import { requireApi } from '../lib/api.server';
import { listAll, write } from '../lib/editor.server';
import { CONTROL_LABELS, filterBody, filterForm, formatManualOptions, newFilterForm, type ControlType } from '../lib/editor-filters';
import { errorsByField, toMany, type ApiErrorItem, type FormState, type ResourceBody } from '../lib/editor-forms';
import type { FilterAttributes } from '../lib/types';
import type { EditData } from './app.dashboard.$id.edit';

export async function loader({ request, context }: Route.LoaderArgs) {
  const all = await listAll<FilterAttributes>(requireApi(request, context), '/filters');
  return {
    organizationFilters: all.map((f) => ({
      id: f.id,
      label: f.attributes.display_name?.trim() || f.attributes.variable_name,
      variable: f.attributes.variable_name,
    })),
  };
}

type Payload = { intent: 'create' | 'update'; id?: string; body: ResourceBody } | { intent: 'delete'; id: string } | { intent: 'order'; ids: string[] };

export async function action({ request, context, params }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const p = (await request.json().catch(() => null)) as Payload | null;
  if (!p) return { intent: 'unknown', errors: [{ detail: 'The page sent a body the app cannot read.' }] as ApiErrorItem[] };
  const dashboard = encodeURIComponent(params.id);
  let res;
  if (p.intent === 'create') res = await write(api, 'POST', '/filters', p.body);
  else if (p.intent === 'update' && p.id) res = await write(api, 'PATCH', `/filters/${encodeURIComponent(p.id)}`, p.body);
  else if (p.intent === 'delete') res = await write(api, 'DELETE', `/filters/${encodeURIComponent(p.id)}`);
  else if (p.intent === 'order') {
    res = await write(api, 'PATCH', `/dashboards/${dashboard}`, {
      data: { type: 'dashboards', id: params.id, attributes: {}, relationships: { filters: toMany('filters', p.ids) } },
    });
  } else return { intent: 'unknown', errors: [{ detail: 'Unknown action.' }] as ApiErrorItem[] };
  return res.ok ? { intent: p.intent, ok: true as const } : { intent: p.intent, errors: res.errors };
}

type Editing = { mode: 'create' } | { mode: 'update'; id: string } | null;

export default function FiltersTab({ loaderData }: Route.ComponentProps) {
  const data = useRouteLoaderData('routes/app.dashboard.$id.edit') as EditData;
  const { dashboard, filters, datasources } = data;
  const fetcher = useFetcher<{ intent: string; ok?: boolean; errors?: ApiErrorItem[] }>();
  const [editing, setEditing] = useState<Editing>(null);
  const [attach, setAttach] = useState('');
  const busy = fetcher.state !== 'idle';
  const last = fetcher.data;
  const formErrors = last && !last.ok && (last.intent === 'create' || last.intent === 'update') ? errorsByField(last.errors) : {};
  const listErrors =
    last && !last.ok && (last.intent === 'delete' || last.intent === 'order' || last.intent === 'unknown')
      ? (last.errors ?? []).map((e) => e.detail ?? e.code ?? 'Refused.')
      : [];

  // A successful create or update closes the form.
  useEffect(() => {
    if (fetcher.state === 'idle' && last?.ok && (last.intent === 'create' || last.intent === 'update')) setEditing(null);
  }, [fetcher.state, last]);

  const ids = filters.map((f) => f.id);
  const send = (payload: Payload) => fetcher.submit(payload as never, { method: 'post', encType: 'application/json' });
  const move = (i: number, by: number) => {
    const next = [...ids];
    const [x] = next.splice(i, 1);
    next.splice(i + by, 0, x!);
    send({ intent: 'order', ids: next });
  };
  const relOf = (f: (typeof filters)[number], name: string) => {
    const d = (f.relationships as Record<string, { data?: { id?: string } | null }>)[name]?.data;
    return d && typeof d.id === 'string' ? d.id : null;
  };
  const attachable = loaderData.organizationFilters.filter((f) => !ids.includes(f.id));
  const current = editing?.mode === 'update' ? filters.find((f) => f.id === editing.id) : null;

  const submit = (form: FormState) => {
    if (editing?.mode === 'update' && current) {
      const options = current.meta?.options as { values?: unknown[]; value_names?: unknown[] } | undefined;
      send({
        intent: 'update',
        id: current.id,
        body: filterBody(form, {
          mode: 'update',
          id: current.id,
          original: current.attributes,
          originalDatasource: relOf(current, 'datasource'),
          originalParent: relOf(current, 'parent_filter'),
          originalOptions: formatManualOptions(options?.values, options?.value_names),
        }),
      });
    } else {
      send({ intent: 'create', body: filterBody(form, { mode: 'create', dashboardId: dashboard.id }) });
    }
  };

  return (
    <section data-testid="filters-tab">
      <div className="edit-toolbar">
        <p className="muted small">
          Filters appear in the filter bar in this order. A report uses a filter by its variable: <code>{'{[o.country]=country}'}</code>.
        </p>
        <span className="spacer" />
        <button
          type="button"
          className="button button--primary"
          onClick={() => setEditing({ mode: 'create' })}
          disabled={editing?.mode === 'create'}
          data-testid="add-filter"
        >
          + Add filter
        </button>
      </div>
      <FormErrors messages={listErrors} />
      {editing ? (
        <FilterForm
          key={editing.mode === 'update' ? editing.id : 'new'}
          mode={editing.mode}
          initial={
            current
              ? filterForm(
                  current.attributes,
                  { datasource: relOf(current, 'datasource'), parent: relOf(current, 'parent_filter') },
                  (current.meta?.options as { values?: unknown[]; value_names?: unknown[] } | undefined) ?? null,
                )
              : newFilterForm()
          }
          datasources={datasources}
          dashboardId={dashboard.id}
          variables={filters
            .filter((f) => f.id !== current?.id)
            .map((f) => ({
              variable_name: f.attributes.variable_name,
              display_name: f.attributes.display_name ?? null,
              control_type: f.attributes.control_type,
            }))}
          parents={filters.filter((f) => f.id !== current?.id).map((f) => ({ id: f.id, label: f.attributes.display_name || f.attributes.variable_name }))}
          lastQuery={
            current
              ? {
                  success: (current.attributes.last_query_success as string | null) ?? null,
                  error: (current.attributes.last_query_error_message as string | null) ?? null,
                }
              : null
          }
          errors={formErrors}
          busy={busy}
          onSubmit={submit}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      {filters.length === 0 ? <p className="muted">This dashboard has no filters yet.</p> : null}
      <ul className="resource-list" data-testid="filter-list">
        {filters.map((f, i) => (
          <li key={f.id} className="resource-row" data-testid={`filter-row-${f.attributes.variable_name}`}>
            <div className="resource-row__main">
              <div className="resource-row__title">{f.attributes.display_name || f.attributes.variable_name}</div>
              <div className="resource-row__meta">
                <code>{f.attributes.variable_name}</code> · {CONTROL_LABELS[f.attributes.control_type as ControlType] ?? f.attributes.control_type} ·{' '}
                {f.attributes.value_type}
                {f.attributes.required ? ' · required' : ''}
              </div>
              {f.attributes.last_query_error_message ? (
                <div className="field__error">Options query failed: {String(f.attributes.last_query_error_message)}</div>
              ) : null}
            </div>
            <div className="resource-row__actions">
              <button type="button" className="icon-button" aria-label="Move up" disabled={i === 0 || busy} onClick={() => move(i, -1)}>
                ↑
              </button>
              <button type="button" className="icon-button" aria-label="Move down" disabled={i === filters.length - 1 || busy} onClick={() => move(i, 1)}>
                ↓
              </button>
              <button
                type="button"
                className="button button--small"
                onClick={() => setEditing({ mode: 'update', id: f.id })}
                data-testid={`edit-filter-${f.attributes.variable_name}`}
              >
                Edit
              </button>
              <button
                type="button"
                className="button button--ghost button--small"
                disabled={busy}
                onClick={() => send({ intent: 'order', ids: ids.filter((x) => x !== f.id) })}
                title="Remove from this dashboard; the filter stays in the organization"
              >
                Detach
              </button>
              <button
                type="button"
                className="button button--ghost button--small"
                disabled={busy}
                onClick={() =>
                  window.confirm(`Delete the filter “${f.attributes.variable_name}” from every dashboard?`) && send({ intent: 'delete', id: f.id })
                }
                data-testid={`delete-filter-${f.attributes.variable_name}`}
              >
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
      {attachable.length ? (
        <div className="edit-toolbar" style={{ marginTop: 16 }}>
          <label className="field">
            <span className="field__label">Add a filter another dashboard uses</span>
            <select value={attach} onChange={(e) => setAttach(e.target.value)} data-testid="attach-filter">
              <option value="">Choose a filter…</option>
              {attachable.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.label} ({f.variable})
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="button"
            disabled={!attach || busy}
            onClick={() => {
              send({ intent: 'order', ids: [...ids, attach] });
              setAttach('');
            }}
          >
            Attach
          </button>
        </div>
      ) : null}
    </section>
  );
}
