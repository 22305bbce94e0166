/**
 * The dashboard settings page's form ↔ the dashboard's attributes (spec 01 §1 defaults), and the API's
 * 422 pointers → the form's fields. Pure: the API decides every rule; the form converts what the user
 * typed and sends only what changed.
 */
import { AGGREGATIONS } from '@cairn/core/sql/params';
import type { DashboardAttributes } from './types';

const TIME_ZONE_TYPES = ['disabled', 'organization', 'fixed', 'input'] as const;
type TimeZoneType = (typeof TIME_ZONE_TYPES)[number];
export const COLOR_SCHEMES = ['scheme_1', 'scheme_2', 'scheme_3', 'scheme_4', 'scheme_5', 'scheme_6', 'scheme_7', 'scheme_8'] as const;
export const SETTINGS_AGGREGATIONS: readonly string[] = AGGREGATIONS;

/** Spec defaults of the attributes a dashboard may leave unset. */
const DASHBOARD_DEFAULTS = {
  data_refresh_rate: 1440,
  default_page_width: 1600,
  color_scheme: 'scheme_6',
  automatic_update_enabled: true,
  thumbnail_enabled: true,
  prewarm: false,
  apply_immediately: true,
} as const;

/** The attributes the settings page reads: any the dashboard leaves out take the spec's defaults. */
export type SettingsAttributes = Partial<DashboardAttributes> & Pick<DashboardAttributes, 'name'>;

export interface SettingsForm {
  name: string;
  description: string;
  tzType: TimeZoneType;
  fixedZone: string;
  allowedZones: string[];
  refreshRate: string;
  anchorTime: string;
  automaticUpdate: boolean;
  thumbnail: boolean;
  prewarm: boolean;
  pageWidth: string;
  colorScheme: string;
  applyImmediately: boolean;
  aggregationOptions: string[];
}

/** The form's fields (also the keys errors are filed under); `_form` holds messages of no field. */
export type SettingsField = keyof SettingsForm | '_form';

export function settingsForm(a: SettingsAttributes): SettingsForm {
  const tz = a.time_zone_config ?? null;
  const type = (TIME_ZONE_TYPES as readonly string[]).includes(tz?.type ?? '') ? (tz!.type as TimeZoneType) : 'organization';
  return {
    name: a.name ?? '',
    description: a.description ?? '',
    tzType: type,
    fixedZone: tz?.fixed_time_zone ?? '',
    allowedZones: [...(tz?.allowed_time_zones ?? [])],
    refreshRate: String(a.data_refresh_rate ?? DASHBOARD_DEFAULTS.data_refresh_rate),
    anchorTime: a.data_refresh_anchor_time ?? '',
    automaticUpdate: a.automatic_update_enabled ?? DASHBOARD_DEFAULTS.automatic_update_enabled,
    thumbnail: a.thumbnail_enabled ?? DASHBOARD_DEFAULTS.thumbnail_enabled,
    prewarm: a.prewarm ?? DASHBOARD_DEFAULTS.prewarm,
    pageWidth: String(a.default_page_width ?? DASHBOARD_DEFAULTS.default_page_width),
    colorScheme: a.color_scheme ?? DASHBOARD_DEFAULTS.color_scheme,
    applyImmediately: a.filters_configuration?.apply_immediately ?? DASHBOARD_DEFAULTS.apply_immediately,
    aggregationOptions: [...(a.filters_configuration?.aggregation_options ?? [])],
  };
}

/** A whole number as typed; anything else is sent as typed so the API's message names the field. */
function numberOrText(raw: string): number | string {
  const t = raw.trim();
  return /^-?\d+$/.test(t) ? Number(t) : t;
}

/**
 * Every attribute the form sets, as the API expects it. filter_sorting and hidden_parameters are not on
 * this form: they are kept from `original` (filters_configuration is replaced as a whole).
 */
export function settingsAttributes(form: SettingsForm, original: SettingsAttributes = { name: '' }): Record<string, unknown> {
  const tz: Record<string, unknown> = { type: form.tzType };
  if (form.tzType === 'fixed' || form.tzType === 'input') tz.fixed_time_zone = form.fixedZone.trim() || null;
  if (form.tzType === 'input') tz.allowed_time_zones = form.allowedZones.length ? form.allowedZones : null;
  const filtersConfiguration: Record<string, unknown> = { ...(original.filters_configuration ?? {}), apply_immediately: form.applyImmediately };
  if (form.aggregationOptions.length) filtersConfiguration.aggregation_options = form.aggregationOptions;
  else delete filtersConfiguration.aggregation_options;
  return {
    name: form.name,
    description: form.description.trim() === '' ? null : form.description,
    time_zone_config: tz,
    data_refresh_rate: numberOrText(form.refreshRate),
    data_refresh_anchor_time: form.anchorTime.trim() === '' ? null : form.anchorTime.trim(),
    automatic_update_enabled: form.automaticUpdate,
    thumbnail_enabled: form.thumbnail,
    prewarm: form.prewarm,
    default_page_width: numberOrText(form.pageWidth),
    color_scheme: form.colorScheme,
    filters_configuration: filtersConfiguration,
  };
}

/** Only the attributes whose value differs from what the dashboard has now (the PATCH body's attributes). */
export function changedAttributes(form: SettingsForm, original: SettingsAttributes): Record<string, unknown> {
  const next = settingsAttributes(form, original);
  const before = settingsAttributes(settingsForm(original), original);
  return Object.fromEntries(Object.entries(next).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])));
}

const POINTER_FIELDS: Record<string, SettingsField> = {
  name: 'name',
  description: 'description',
  time_zone_config: 'tzType',
  'time_zone_config/type': 'tzType',
  'time_zone_config/fixed_time_zone': 'fixedZone',
  'time_zone_config/allowed_time_zones': 'allowedZones',
  data_refresh_rate: 'refreshRate',
  data_refresh_anchor_time: 'anchorTime',
  automatic_update_enabled: 'automaticUpdate',
  thumbnail_enabled: 'thumbnail',
  prewarm: 'prewarm',
  default_page_width: 'pageWidth',
  color_scheme: 'colorScheme',
  filters_configuration: 'applyImmediately',
  'filters_configuration/apply_immediately': 'applyImmediately',
  'filters_configuration/aggregation_options': 'aggregationOptions',
};

/** `/data/attributes/time_zone_config/fixed_time_zone` → `fixedZone`; list indexes are dropped; unknown → `_form`. */
export function settingsFieldOf(pointer: string | undefined): SettingsField {
  const m = /^\/data\/attributes\/(.+)$/.exec(pointer ?? '');
  if (!m) return '_form';
  const parts = m[1]!.split('/').filter((p) => !/^\d+$/.test(p));
  for (let n = Math.min(parts.length, 2); n > 0; n--) {
    const field = POINTER_FIELDS[parts.slice(0, n).join('/')];
    if (field) return field;
  }
  return '_form';
}

export interface ApiError {
  code?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string };
}

/** The API's errors by settings field. */
export function settingsErrors(errors: readonly ApiError[] | null | undefined): Partial<Record<SettingsField, string[]>> {
  const out: Partial<Record<SettingsField, string[]>> = {};
  for (const e of errors ?? []) {
    const text = e.detail || e.title || e.code || 'This value was refused.';
    (out[settingsFieldOf(e.source?.pointer)] ??= []).push(text);
  }
  return out;
}

/** Zones whose name holds every word of the query (case-insensitive), at most `limit` of them. */
export function matchZones(zones: readonly string[], query: string, limit = 50): string[] {
  const words = query
    .toLowerCase()
    .split(/[\s/]+/)
    .filter(Boolean);
  const out: string[] = [];
  for (const z of zones) {
    const name = z.toLowerCase().replace(/_/g, ' ');
    if (words.every((w) => name.includes(w.replace(/_/g, ' ')))) out.push(z);
    if (out.length >= limit) break;
  }
  return out;
}

/** Every IANA zone the runtime knows, UTC first. */
export function allTimeZones(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...all.filter((z) => z !== 'UTC')];
}
