/**
 * The report editor (docs: reports/editor): name, datasource, SQL with completion, schema browser,
 * filter variables and snippets, Run with live progress and Stop, the result (Data), the chart and its
 * options (Chart), the report settings (Settings), and Save (the API's 422 errors shown by the field).
 */
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useBlocker, useFetcher } from 'react-router';
import { ChartBody } from '../charts/ChartBody';
import { parseChartConfig } from '../charts/config';
import { SchemaBrowser } from '../datasources/SchemaBrowser';
import { dialectFor, editorVariables, schemaNamespace, type SchemaData, type SnippetInfo } from '../../lib/editor-completion';
import { errorPosition, sqlToRun } from '../../lib/editor-execution';
import { errorsByField, reportBody, unplacedErrors, type ApiErrorItem, type FormState } from '../../lib/editor-forms';
import { unknownVariables } from '../../lib/editor-variables';
import type { InputParameters } from '../../lib/filters';
import type { DrillTarget } from './DrilldownEditor';
import { ChartConfigEditor } from './ChartConfigEditor';
import { FieldErrors, FormErrors } from './Field';
import { InsertBar } from './InsertBar';
import { ReportSettings } from './ReportSettings';
import { ResultPages } from './ResultPages';
import { NEW_DASHBOARD, SaveTarget } from './SaveTarget';
import { UnknownVariablesNotice } from './UnknownVariablesNotice';
import { RunStatus } from './RunStatus';
import type { SqlEditorHandle } from './SqlEditor';
import { useQueryRun } from './useQueryRun';

const SqlEditor = lazy(() => import('./SqlEditor'));

interface EditorDatasource {
  id: string;
  name: string;
  database_type: string;
  is_sample: boolean;
  enabled: boolean;
  default_schema_name: string | null;
}

export interface ReportEditorProps {
  mode: 'create' | 'update';
  reportId: string | null;
  original: Record<string, unknown>;
  originalDatasourceId: string | null;
  initialForm: FormState;
  initialDatasourceId: string | null;
  dashboard: { id: string; name: string; locked: boolean; palette: string[]; backTo: string; zone?: string };
  filters: { variable_name: string; display_name?: string | null; control_type: string; value_type?: string }[];
  /** Dashboards the chart's drill-down may open. */
  drillTargets?: DrillTarget[];
  datasources: EditorDatasource[];
  /** With their text where known, so the variables inside them are checked too. */
  snippets: (SnippetInfo & { text?: string | null })[];
  parameters: InputParameters;
  canRefreshSchema: boolean;
  filterBar?: React.ReactNode;
  /** The standalone editor (`/app/reports/new` without a dashboard): the dashboards the report may be saved onto. */
  standalone?: { dashboards: { id: string; name: string; locked: boolean; variables: string[] }[] } | null;
}

type Tab = 'data' | 'chart' | 'settings';
const PLACED = [
  'dashboard',
  'name',
  'sql_query',
  'datasource',
  'chart_configuration',
  'description',
  'no_data_message',
  'attribution',
  'data_refresh_rate',
  'data_refresh_anchor_time',
  'default_page_width',
  'default_page_height',
  'display_name_as_title',
  'download_actions_enabled',
  'data_download_enabled',
  'maximize_action_enabled',
  'refresh_enabled',
  'unused_filters_warning_enabled',
  'unlimited_csv_export_enabled',
];

function useMounted() {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

export function ReportEditor(props: ReportEditorProps) {
  const { dashboard, datasources } = props;
  const [form, setForm] = useState<FormState>(props.initialForm);
  const [datasourceId, setDatasourceId] = useState(props.initialDatasourceId ?? '');
  const [tab, setTab] = useState<Tab>('data');
  const [schema, setSchema] = useState<SchemaData | null>(null);
  const [dirty, setDirty] = useState(false);
  /** Standalone: the dashboard to save onto ('' none yet, NEW_DASHBOARD a new one named `newName`). */
  const [target, setTarget] = useState('');
  const [newName, setNewName] = useState('');
  const editor = useRef<SqlEditorHandle | null>(null);
  const mounted = useMounted();
  const run = useQueryRun();
  const save = useFetcher<{ errors?: ApiErrorItem[] }>();

  const datasource = datasources.find((d) => d.id === datasourceId) ?? null;
  const sql = typeof form.sql_query === 'string' ? form.sql_query : '';
  const set = (name: string, value: unknown) => {
    setForm((f) => ({ ...f, [name]: value as FormState[string] }));
    setDirty(true);
  };

  const variables = useMemo(() => editorVariables(props.filters), [props.filters]);
  const namespace = useMemo(
    () => schemaNamespace(schema, datasource?.default_schema_name ?? (datasource?.is_sample ? 'sample_shop' : null)),
    [schema, datasource],
  );
  const dialect = dialectFor(datasource?.database_type);
  const standalone = props.standalone ?? null;
  const targetDashboard = standalone?.dashboards.find((d) => d.id === target) ?? null;
  // Standalone, the variables are checked against the filters of the dashboard picked (none for a new one).
  const checkedFilters = useMemo(
    () => (standalone ? (targetDashboard?.variables ?? []).map((v) => ({ variable_name: v, control_type: 'input' })) : props.filters),
    [standalone, targetDashboard, props.filters],
  );
  const unknown = useMemo(
    () => unknownVariables(sql, { filters: checkedFilters, snippets: props.snippets, databaseType: datasource?.database_type }),
    [sql, checkedFilters, props.snippets, datasource?.database_type],
  );

  const errors = useMemo(() => errorsByField(save.data?.errors), [save.data]);
  const formMessages = unplacedErrors(errors, PLACED);
  const saving = save.state !== 'idle';

  // A refused save leaves the changes unsaved.
  useEffect(() => {
    if (save.state === 'idle' && save.data?.errors?.length) setDirty(true);
  }, [save.state, save.data]);

  // Leaving with unsaved changes asks first.
  useEffect(() => {
    if (!dirty || saving) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty, saving]);

  // So does leaving for another page of the app (filter changes stay on this page and are fine).
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && !saving && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm('Leave the report editor? Your changes are not saved.')) blocker.proceed();
    else blocker.reset();
  }, [blocker]);

  const runQuery = () => {
    if (!datasourceId) return;
    const text = editor.current ? sqlToRun(sql, editor.current.selection()) : sql;
    if (!text.trim()) return;
    setTab((t) => (t === 'settings' ? 'data' : t));
    void run.start(datasourceId, text, props.parameters, standalone ? targetDashboard?.id : dashboard.id);
  };
  const running = run.state.phase === 'running' || run.state.phase === 'fetching';

  const onSave = () => {
    if (standalone) {
      const body = reportBody(form, { mode: 'create', dashboardId: target === NEW_DASHBOARD ? '' : target, datasourceId });
      const chosen = target === NEW_DASHBOARD ? { newDashboard: newName } : target ? { dashboardId: target } : null;
      setDirty(false);
      save.submit({ body, target: chosen } as never, { method: 'post', encType: 'application/json' });
      return;
    }
    const body =
      props.mode === 'create'
        ? reportBody(form, { mode: 'create', dashboardId: dashboard.id, datasourceId })
        : reportBody(form, { mode: 'update', id: props.reportId!, datasourceId, originalDatasourceId: props.originalDatasourceId, original: props.original });
    setDirty(false);
    save.submit({ body, backTo: dashboard.backTo } as never, { method: 'post', encType: 'application/json' });
  };

  const result = run.state.phase === 'done' && run.state.rows.status === 'ok' ? run.state.rows : null;
  // The whole result of this run downloads from its execution, whether the SQL is saved or not.
  const downloadName = String(form.name ?? '').trim() || 'Query results';
  const chart = parseChartConfig(form.chart_configuration);
  const errorLine = run.state.phase === 'failed' ? (errorPosition(run.state.message, run.state.sql)?.line ?? null) : null;
  const selectedText = () => {
    const r = editor.current?.selection();
    return r ? sql.slice(r.from, r.to) : '';
  };

  return (
    <main className="page page--editor report-editor" data-testid="report-editor">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/app/">Dashboards</Link> <span aria-hidden="true">/</span>{' '}
        {standalone ? null : (
          <>
            <Link to={dashboard.backTo}>{dashboard.name}</Link> <span aria-hidden="true">/</span>{' '}
          </>
        )}
        <span>{standalone ? 'New report (SQL editor)' : props.mode === 'create' ? 'New report' : 'Edit report'}</span>
      </nav>
      {dashboard.locked ? (
        <p className="notice" role="status" data-testid="locked-notice">
          This dashboard is locked: its reports cannot be saved until someone unlocks it. You can still write and run queries.
        </p>
      ) : null}
      <header className="editor-bar">
        <label className="editor-bar__name">
          <span className="visually-hidden">Report name</span>
          <input
            value={String(form.name ?? '')}
            onChange={(e) => set('name', e.target.value)}
            placeholder="Report name"
            aria-invalid={Boolean(errors.name)}
            data-testid="report-name"
          />
          <FieldErrors name="name" errors={errors} />
        </label>
        <label className="editor-bar__datasource">
          <span className="field__label">Datasource</span>
          <select
            value={datasourceId}
            onChange={(e) => {
              setDatasourceId(e.target.value);
              setSchema(null);
              setDirty(true);
            }}
            data-testid="report-datasource"
            aria-invalid={Boolean(errors.datasource)}
          >
            {datasourceId === '' ? <option value="">Pick a datasource</option> : null}
            {datasources.map((d) => (
              <option key={d.id} value={d.id} disabled={!d.enabled}>
                {d.name}
                {d.enabled ? '' : ' (disabled)'}
              </option>
            ))}
          </select>
          <FieldErrors name="datasource" errors={errors} />
        </label>
        <div className="editor-bar__actions">
          <button
            type="button"
            className="button"
            onClick={runQuery}
            disabled={!datasourceId || running || !sql.trim()}
            data-testid="run-query"
            title="Ctrl+Enter / ⌘+Enter"
          >
            ▶ Run
          </button>
          {standalone ? (
            <SaveTarget dashboards={standalone.dashboards} target={target} setTarget={setTarget} newName={newName} setNewName={setNewName} errors={errors} />
          ) : null}
          <button
            type="button"
            className="button button--primary"
            onClick={onSave}
            disabled={saving || dashboard.locked || (standalone !== null && (!target || (target === NEW_DASHBOARD && !newName.trim())))}
            data-testid="save-report"
          >
            {saving ? 'Saving…' : 'Save'}
          </button>
          <Link to={dashboard.backTo} className="button button--ghost" data-testid="cancel-editor">
            Cancel
          </Link>
        </div>
      </header>
      <FormErrors messages={formMessages} />
      {props.filterBar}
      <div className="editor-layout">
        <aside className="editor-side">
          {datasourceId ? (
            <SchemaBrowser
              key={datasourceId}
              datasourceId={datasourceId}
              defaultSchema={datasource?.default_schema_name ?? (datasource?.is_sample ? 'sample_shop' : null)}
              onInsert={(text) => editor.current?.insert(text)}
              onLoaded={setSchema}
              canRefresh={props.canRefreshSchema}
            />
          ) : null}
          <InsertBar variables={variables} snippets={props.snippets} selectedText={selectedText} onInsert={(text) => editor.current?.insert(text)} />
        </aside>
        <section className="editor-main">
          <div className={`sql-box${errors.sql_query ? ' is-invalid' : ''}`}>
            {mounted ? (
              <Suspense fallback={<textarea className="sql-fallback" readOnly value={sql} aria-label="SQL (loading the editor)" />}>
                <SqlEditor
                  value={sql}
                  onChange={(v) => set('sql_query', v)}
                  dialect={dialect}
                  namespace={namespace}
                  variables={variables}
                  snippets={props.snippets}
                  onRun={runQuery}
                  errorLine={errorLine}
                  label="SQL query"
                  handle={editor}
                />
              </Suspense>
            ) : (
              <textarea className="sql-fallback" readOnly value={sql} aria-label="SQL (loading the editor)" />
            )}
          </div>
          <FieldErrors name="sql_query" errors={errors} />
          <UnknownVariablesNotice
            unknown={unknown}
            filters={checkedFilters.map((f) => f.variable_name)}
            dashboardName={standalone ? (targetDashboard?.name ?? (target === NEW_DASHBOARD ? newName.trim() : null)) : dashboard.name}
          />
          <RunStatus state={run.state} elapsed={run.elapsed} onCancel={() => void run.cancel()} onGoTo={(l, c) => editor.current?.goTo(l, c)} />
          <div className="tabs" role="tablist" aria-label="Result, chart and settings">
            {(['data', 'chart', 'settings'] as const).map((t) => (
              <button
                key={t}
                type="button"
                role="tab"
                aria-selected={tab === t}
                className={`tabs__tab${tab === t ? ' is-active' : ''}`}
                onClick={() => setTab(t)}
                data-testid={`tab-${t}`}
              >
                {t === 'data' ? 'Data' : t === 'chart' ? 'Chart' : 'Settings'}
                {(t === 'chart' && errors.chart_configuration) ||
                (t === 'settings' && Object.keys(errors).some((k) => !['name', 'sql_query', 'datasource', 'chart_configuration', '_form'].includes(k))) ? (
                  <span className="tabs__dot" aria-label="has errors" />
                ) : null}
              </button>
            ))}
          </div>
          <div className="tab-panel" role="tabpanel">
            {tab === 'data' ? (
              result && run.state.phase === 'done' ? (
                <ResultPages
                  executionId={run.state.execution.execution_id}
                  first={result}
                  palette={dashboard.palette}
                  zone={dashboard.zone}
                  downloadName={downloadName}
                />
              ) : (
                <p className="muted empty-result">
                  {run.state.phase === 'done' && run.state.rows.status === 'empty' ? 'The query returned no rows.' : 'The rows of the last run appear here.'}
                </p>
              )
            ) : tab === 'chart' ? (
              <div className="chart-tab">
                <div className="chart-preview" data-testid="chart-preview">
                  {result ? (
                    <ChartBody
                      reportId="preview-chart"
                      config={chart.config}
                      configProblem={chart.problem}
                      data={{ fields: result.fields, rows: result.rows }}
                      palette={dashboard.palette}
                      title={String(form.name || 'Preview')}
                      zone={dashboard.zone}
                    />
                  ) : (
                    <p className="muted empty-result">Run the query to preview the chart.</p>
                  )}
                </div>
                <ChartConfigEditor
                  config={(form.chart_configuration as Record<string, unknown>) ?? { type: 'table' }}
                  fields={result?.fields ?? []}
                  palette={dashboard.palette}
                  drillTargets={props.drillTargets}
                  onChange={(c) => set('chart_configuration', c)}
                />
                <FieldErrors name="chart_configuration" errors={errors} />
              </div>
            ) : (
              <ReportSettings form={form} set={set} errors={errors} />
            )}
          </div>
        </section>
      </div>
    </main>
  );
}
