/**
 * Forms ↔ JSON:API bodies for the editor's resources (reports, datasources, filters, SQL snippets), and
 * the API's 422 errors → messages per form field. Pure; the API decides every rule, the form only
 * converts what the user typed into attribute values and sends, on update, only what changed.
 */

/** How a form field becomes an attribute value. */
type FieldKind =
  /** a string; '' becomes null when nullable, else is sent as '' */
  | 'text'
  /** a number; '' becomes null */
  | 'number'
  | 'boolean'
  /** several strings, written one per line or separated by commas; empty → null when nullable */
  | 'list'
  /** write-only: '' means "leave as it is" (never sent) */
  | 'secret'
  /** any JSON value kept as is (chart_configuration, default_values…) */
  | 'json';

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  nullable?: boolean;
}

export type FormValue = string | boolean | number | null | unknown[] | Record<string, unknown>;
export type FormState = Record<string, FormValue | undefined>;

export interface ResourceBody {
  data: {
    type: string;
    id?: string;
    attributes: Record<string, unknown>;
    relationships?: Record<string, { data: { type: string; id: string } | { type: string; id: string }[] | null }>;
  };
}

/** One form value as the attribute value the API expects; undefined = do not send. */
export function toAttribute(spec: FieldSpec, raw: FormValue | undefined): unknown {
  switch (spec.kind) {
    case 'text': {
      if (raw === undefined) return undefined;
      const s = raw === null ? '' : String(raw);
      return s.trim() === '' && spec.nullable ? null : s;
    }
    case 'number': {
      if (raw === undefined) return undefined;
      if (raw === null || (typeof raw === 'string' && raw.trim() === '')) return spec.nullable ? null : undefined;
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      // Not a number: sent as typed, so the API's message names the field.
      return Number.isFinite(n) ? n : String(raw);
    }
    case 'boolean':
      return raw === undefined ? undefined : raw === true || raw === 'true' || raw === 'on';
    case 'list': {
      if (raw === undefined) return undefined;
      const items = Array.isArray(raw)
        ? raw.map((v) => String(v).trim()).filter(Boolean)
        : String(raw ?? '')
            .split(/[\n,]/)
            .map((v) => v.trim())
            .filter(Boolean);
      return items.length ? items : spec.nullable ? null : [];
    }
    case 'secret':
      return typeof raw === 'string' && raw !== '' ? raw : undefined;
    case 'json':
      return raw;
  }
}

/** An attribute value as the form shows it. */
function toFormValue(spec: FieldSpec, value: unknown): FormValue {
  switch (spec.kind) {
    case 'text':
      return value === null || value === undefined ? '' : String(value);
    case 'number':
      return typeof value === 'number' ? String(value) : '';
    case 'boolean':
      return value === true;
    case 'list':
      return Array.isArray(value) ? value.join('\n') : '';
    case 'secret':
      return '';
    case 'json':
      return (value ?? null) as FormValue;
  }
}

export function formFromAttributes(specs: readonly FieldSpec[], attributes: Record<string, unknown>): FormState {
  const out: FormState = {};
  for (const s of specs) out[s.name] = toFormValue(s, attributes[s.name]);
  return out;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The attributes to send: on create every field with a value (empty optional fields are left to the
 * API's defaults), on update only the fields whose value differs from `original`.
 */
export function attributesFor(
  specs: readonly FieldSpec[],
  form: FormState,
  mode: 'create' | 'update',
  original: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    const v = toAttribute(s, form[s.name]);
    if (v === undefined) continue;
    if (mode === 'create') {
      if (v === null || (s.kind === 'text' && v === '' && !s.nullable)) continue;
      out[s.name] = v;
    } else if (!same(v, original[s.name])) {
      out[s.name] = v;
    }
  }
  return out;
}

export function toOne(type: string, id: string | null | undefined) {
  return { data: id ? { type, id } : null };
}
export function toMany(type: string, ids: readonly string[]) {
  return { data: ids.map((id) => ({ type, id })) };
}

// ---- API errors → fields ----

export interface ApiErrorItem {
  status?: string;
  code?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string; header?: string };
}

/** Form-level messages go under this key. */
export const FORM = '_form';

/**
 * 422 errors by form field: `/data/attributes/name` → `name`, `/data/attributes/values/2` → `values`,
 * `/data/relationships/datasource/data` → `datasource`, `/layout/3/width` → `layout`; others → `_form`.
 */
export function errorsByField(errors: readonly ApiErrorItem[] | null | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of errors ?? []) {
    const text = e.detail || e.title || e.code || 'This value was refused.';
    (out[fieldOfPointer(e.source?.pointer)] ??= []).push(text);
  }
  return out;
}

function fieldOfPointer(pointer: string | undefined): string {
  if (!pointer) return FORM;
  const resource = /^\/data\/(?:attributes|relationships)\/([^/]+)/.exec(pointer);
  if (resource) return resource[1]!;
  // Action bodies point at their members directly: /layout/3/width, /sql_query.
  const action = /^\/([A-Za-z0-9_]+)/.exec(pointer);
  return action && action[1] !== 'data' ? action[1]! : FORM;
}

/** Messages that belong to no field shown in the form (so nothing the API said is lost). */
export function unplacedErrors(byField: Record<string, string[]>, shown: readonly string[]): string[] {
  return Object.entries(byField)
    .filter(([field]) => field === FORM || !shown.includes(field))
    .flatMap(([field, messages]) => (field === FORM ? messages : messages.map((m) => `${field}: ${m}`)));
}

// ---- Reports ----

export const REPORT_SWITCHES = [
  { name: 'display_name_as_title', label: 'Show name as title', default: true },
  { name: 'download_actions_enabled', label: 'Show download actions', default: true },
  { name: 'data_download_enabled', label: 'Allow data download', default: true },
  { name: 'maximize_action_enabled', label: 'Allow maximize', default: true },
  { name: 'refresh_enabled', label: 'Allow refresh', default: true },
  { name: 'unused_filters_warning_enabled', label: 'Warn about unused filters', default: false },
  { name: 'unlimited_csv_export_enabled', label: 'Allow unlimited CSV export', default: false },
] as const;

export const REPORT_FIELDS: readonly FieldSpec[] = [
  { name: 'name', kind: 'text' },
  { name: 'description', kind: 'text', nullable: true },
  { name: 'sql_query', kind: 'text' },
  ...REPORT_SWITCHES.map((s) => ({ name: s.name, kind: 'boolean' as const })),
  { name: 'no_data_message', kind: 'text', nullable: true },
  { name: 'attribution', kind: 'text', nullable: true },
  { name: 'data_refresh_rate', kind: 'number', nullable: true },
  { name: 'data_refresh_anchor_time', kind: 'text', nullable: true },
  { name: 'default_page_width', kind: 'number' },
  { name: 'default_page_height', kind: 'number' },
  { name: 'chart_configuration', kind: 'json' },
];

export function newReportForm(): FormState {
  const form: FormState = {
    name: '',
    description: '',
    sql_query: '',
    no_data_message: '',
    attribution: '',
    data_refresh_rate: '',
    data_refresh_anchor_time: '',
    default_page_width: '800',
    default_page_height: '600',
    chart_configuration: { type: 'table' },
  };
  for (const s of REPORT_SWITCHES) form[s.name] = s.default;
  return form;
}

export function reportBody(
  form: FormState,
  target:
    | { mode: 'create'; dashboardId: string; datasourceId: string }
    | { mode: 'update'; id: string; datasourceId: string; original: Record<string, unknown>; originalDatasourceId: string | null },
): ResourceBody {
  if (target.mode === 'create') {
    const attributes = attributesFor(REPORT_FIELDS, form, 'create');
    // The switches go along even at their default, so what the editor showed is what is stored.
    for (const s of REPORT_SWITCHES) attributes[s.name] = toAttribute({ name: s.name, kind: 'boolean' }, form[s.name] ?? s.default);
    return {
      data: {
        type: 'reports',
        attributes,
        relationships: { dashboard: toOne('dashboards', target.dashboardId), datasource: toOne('datasources', target.datasourceId) },
      },
    };
  }
  const attributes = attributesFor(REPORT_FIELDS, form, 'update', target.original);
  const relationships = target.datasourceId !== target.originalDatasourceId ? { datasource: toOne('datasources', target.datasourceId) } : undefined;
  return { data: { type: 'reports', id: target.id, attributes, ...(relationships ? { relationships } : {}) } };
}

// ---- SQL snippets ----

export const SNIPPET_FIELDS: readonly FieldSpec[] = [
  { name: 'name', kind: 'text' },
  { name: 'description', kind: 'text', nullable: true },
  { name: 'text', kind: 'text' },
  { name: 'params', kind: 'list' },
];

export function snippetBody(
  form: FormState,
  target: { mode: 'create' } | { mode: 'update'; id: string; original: Record<string, unknown>; originalDatasourceId: string | null },
): ResourceBody {
  const datasource = typeof form.datasource === 'string' && form.datasource ? form.datasource : null;
  if (target.mode === 'create') {
    return {
      data: {
        type: 'sql_snippets',
        attributes: attributesFor(SNIPPET_FIELDS, form, 'create'),
        ...(datasource ? { relationships: { datasource: toOne('datasources', datasource) } } : {}),
      },
    };
  }
  const attributes = attributesFor(SNIPPET_FIELDS, form, 'update', target.original);
  const changed = datasource !== target.originalDatasourceId;
  return { data: { type: 'sql_snippets', id: target.id, attributes, ...(changed ? { relationships: { datasource: toOne('datasources', datasource) } } : {}) } };
}
