/**
 * `/s/{token}`: a dashboard opened through a sharing link, without an account. The API's public-links
 * module checks the token, the IP allow-list, the signature (links that require a sharing secret) and
 * the password grant on every call; this page asks for the password when needed, then draws the
 * dashboard read-only with the link's toolbar, filter bar, refresh, downloads and colour mode.
 */
import { useAtomValue } from 'jotai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { data, Form, isRouteErrorResponse, redirect, useLocation, useNavigate, useNavigation } from 'react-router';
import type { Route } from './+types/s.$token';
import { DashboardColors, paletteFor } from '../components/charts/palette';
import { useDashboardColors } from '../components/charts/useDashboardColors';
import { Tile, type TileDownloads } from '../components/dashboard/Tile';
import { useDashboardPoll, type PollInput } from '../components/dashboard/useDashboardPoll';
import { rowLimitOf } from '../lib/tile-rows';
import { useMaximizedTile } from '../components/dashboard/useMaximizedTile';
import { FilterBar } from '../components/filters/FilterBar';
import { Logo } from '../components/Logo';
import { ThemeScope } from '../components/ThemeScope';
import { downloadHref } from '../components/sharing/DownloadMenu';
import { publicDashboard, type PublicLinkView } from '../components/sharing/public-dashboard';
import { useEmbedEvents } from '../components/sharing/useEmbedEvents';
import { grantCookie, publicCall, publicLinkApiPath } from '../components/sharing/public-link.server';
import { dashboardZone } from '../lib/dashboard-view';
import { chosenTz, dashboardDefaultValues, effectiveValues, offeredTimeZones, readUrlState, toParameters, withFilterValues } from '../lib/filters';
import { filterOptionsAtom, pollAtom } from '../state/dashboard';
import '../styles/dashboard.css';
import '../components/sharing/public-link.css';
import { readForm } from '../lib/forms.server';
import type { DashboardStatus, StatusError } from '../lib/dashboard-status';

export function meta({ data: d }: Route.MetaArgs) {
  const title = d && d.state === 'open' ? `${d.view.dashboard.name} · ${d.view.link.name}` : 'Shared dashboard';
  return [{ title: `${title} · Cairn` }, { name: 'robots', content: 'noindex, nofollow' }];
}

/** Public links are meant to be embedded: any site may frame them (decided with every page's framing in lib/framing.server.ts). */
export function headers() {
  return {
    'Cache-Control': 'private, no-store',
    'X-Robots-Tag': 'noindex, nofollow',
  };
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const query = new URL(request.url).search.replace(/^\?/, '');
  const res = await publicCall<PublicLinkView>(request, context, params.token, publicLinkApiPath(params.token), { query });
  if (res.ok) {
    // Without the filter bar the page's first poll carries no parameters: that call starts now and
    // streams to the page, so the browser fetches results as soon as it hydrates (no status round trip first).
    const view = res.body;
    const bar = view.link.toolbar_enabled && view.link.filter_bar_enabled;
    const status: Promise<DashboardStatus | StatusError> | null =
      !bar && view.reports.length
        ? publicCall<DashboardStatus>(request, context, params.token, publicLinkApiPath(params.token, '/status'), { query }).then((r) =>
            r.ok ? r.body : { error: r.problem },
          )
        : null;
    return { state: 'open' as const, view, query, token: params.token, initial: status ? { key: 'null', status } : null };
  }
  if (res.problem.code === 'password_required') return { state: 'password' as const, token: params.token };
  throw data({ code: res.problem.code, message: res.problem.message }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const url = new URL(request.url);
  const form = await readForm(request);
  const password = String(form.get('password') ?? '');
  if (!password) return data({ error: 'Enter the password of this link.' }, { status: 422 });
  const res = await publicCall<{ grant: string; expires_at: string }>(request, context, params.token, publicLinkApiPath(params.token, '/password'), {
    password,
    query: url.search.replace(/^\?/, ''),
  });
  if (!res.ok) return data({ error: res.problem.message }, { status: res.problem.status >= 500 ? 503 : res.problem.status });
  return redirect(`${url.pathname}${url.search}`, { headers: { 'Set-Cookie': await grantCookie(request, params.token, res.body.grant, res.body.expires_at) } });
}

function PasswordPage({ error }: { error: string | null }) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle' && navigation.formMethod === 'POST';
  return (
    <main className="auth-page">
      <div className="auth-card">
        <span className="brand brand--large">
          <Logo size={30} /> <span>Cairn</span>
        </span>
        <h1>This dashboard is protected</h1>
        <p className="muted">Enter the password you were given with the link.</p>
        <Form method="post" className="form">
          {error ? (
            <div className="alert alert--error" role="alert" data-testid="link-password-error">
              {error}
            </div>
          ) : null}
          <label className="field">
            <span className="field__label">Password</span>
            <input name="password" type="password" required autoFocus autoComplete="current-password" data-testid="link-password-input" />
          </label>
          <button type="submit" className="button button--primary button--block" disabled={busy}>
            {busy ? 'Checking…' : 'Open dashboard'}
          </button>
        </Form>
      </div>
    </main>
  );
}

/** The link's colour mode, whatever the visitor chose elsewhere in Cairn (not stored). */
function useColorMode(mode: 'light' | 'dark') {
  useEffect(() => {
    const html = document.documentElement;
    const before = html.getAttribute('data-theme');
    html.setAttribute('data-theme', mode);
    return () => {
      if (before) html.setAttribute('data-theme', before);
    };
  }, [mode]);
}

function Downloads({ view, token, query, parameters, order }: { view: PublicLinkView; token: string; query: string; parameters: unknown; order: string[] }) {
  const position = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
  const reports = view.link.data_download_enabled ? view.reports.filter((r) => r.download_enabled).sort((a, b) => position(a.id) - position(b.id)) : [];
  if (!reports.length) return null;
  const base = (id: string) => `/s/${encodeURIComponent(token)}/download/${encodeURIComponent(id)}`;
  const keep = new URLSearchParams({ query }).toString();
  return (
    <details className="public-downloads" data-testid="public-downloads">
      <summary className="button button--small">Download</summary>
      <ul>
        {reports.map((r) => (
          <li key={r.id}>
            <span>{r.name}</span>
            <a href={downloadHref(base(r.id), 'csv', r.name, parameters, keep)} download>
              CSV
            </a>
            <a href={downloadHref(base(r.id), 'xlsx', r.name, parameters, keep)} download>
              Excel
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}

function PublicDashboard({ view, token, query, firstStatus }: { view: PublicLinkView; token: string; query: string; firstStatus: PollInput['initial'] }) {
  const { link, dashboard } = view;
  useColorMode(link.color_mode);
  const { tiles, defs } = useMemo(() => publicDashboard(view), [view]);
  const tzConfig = dashboard.time_zone_config ?? { type: 'organization' };
  const zones = useMemo(() => offeredTimeZones(dashboard.time_zone_config), [dashboard.time_zone_config]);
  const initial = useMemo(() => {
    const read = readUrlState(new URLSearchParams(query), defs, zones);
    return { ...read, tz: chosenTz(read, dashboard.default_parameters, zones) };
  }, [query, defs, zones, dashboard.default_parameters]);
  // Values the signed address set (fixed_variables) stay as signed, whatever the viewer, the address's
  // hash or the embedding page asks for; the API applies them again on every call.
  const fixed = useMemo(() => new Set(view.fixed_variables), [view.fixed_variables]);
  const fixedValues = useMemo(() => Object.fromEntries([...fixed].map((v) => [v, initial.values[v] ?? ''])), [fixed, initial.values]);
  // The shared query (possibly signed) must not change: filters chosen on the page go into the
  // address's hash (#f.<variable>=…&tz=…), which the page reads back on load, so the address shares them.
  const [chosen, setValues] = useState<Record<string, string>>(initial.values);
  const values = useMemo(() => ({ ...chosen, ...fixedValues }), [chosen, fixedValues]);
  const [tz, setTz] = useState<string | null>(initial.tz);
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (!(link.toolbar_enabled && link.filter_bar_enabled) || ![...hash.keys()].some((k) => k.startsWith('f.') || k === 'tz')) return;
    const read = readUrlState(hash, defs, zones);
    setValues({ ...initial.values, ...read.values });
    setTz(read.tz ?? initial.tz);
  }, [location.hash, defs, zones, initial, link.toolbar_enabled, link.filter_bar_enabled]);
  const writeHash = (changes: Record<string, string>, nextTz: string | null | undefined, reset = false) => {
    const current = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (reset) for (const k of [...current.keys()]) if (k.startsWith('f.') || k === 'tz') current.delete(k);
    const baseline = Object.fromEntries(defs.map((d) => [d.variable, initial.values[d.variable] ?? defaults[d.variable] ?? d.defaultValue ?? '']));
    const next = reset
      ? `?${current.toString()}`
      : withFilterValues(`?${current.toString()}`, changes, baseline, nextTz === undefined ? undefined : nextTz === initial.tz ? null : nextTz);
    const hash = next.replace(/^\?/, '');
    navigate({ pathname: location.pathname, search: location.search, hash: hash ? `#${hash}` : '' }, { replace: true, preventScrollReset: true });
  };
  const { maximizedId, onMaximize } = useMaximizedTile('hash');
  const [now, setNow] = useState(() => Date.now());
  const options = useAtomValue(filterOptionsAtom(dashboard.id));
  const poll = useAtomValue(pollAtom(dashboard.id));
  const defaults = useMemo(() => dashboardDefaultValues(defs, dashboard.default_parameters ?? null), [defs, dashboard.default_parameters]);
  const zone = dashboardZone(tzConfig, dashboard.organization_time_zone ?? 'UTC', tz);
  const eff = effectiveValues(defs, values, defaults, options);
  const withBar = link.toolbar_enabled && link.filter_bar_enabled;
  const parameters = withBar ? toParameters(defs, eff.values, { now, zone, tz }) : undefined;
  const parametersKey = JSON.stringify(parameters ?? null);
  const [refreshNonce, setRefreshNonce] = useState(0);
  const reports = useMemo(() => tiles.map((t) => ({ id: t.reportId, noDataMessage: t.noDataMessage, rowLimit: rowLimitOf(t.chartConfiguration) })), [tiles]);
  const filterVariables = useMemo(() => Object.fromEntries(defs.filter((d) => d.queryOptions).map((d) => [d.id, d.variable])), [defs]);
  const waitingFor = withBar && eff.missing.length ? eff.missing.map((d) => `“${d.label}”`).join(' and ') : null;
  const statusBody = useMemo(() => ({ query }), [query]);
  const { refresh } = useDashboardPoll({
    dashboardId: dashboard.id,
    statusUrl: `/s/${encodeURIComponent(token)}/status`,
    statusBody,
    reports,
    filterVariables,
    parameters,
    parametersKey,
    reportsEnabled: !waitingFor,
    automaticUpdate: true,
    refreshNonce,
    initial: withBar ? null : firstStatus,
  });
  // Each tile's menu downloads through the link (the API checks the link's and the report's switches again).
  const downloads = useMemo<TileDownloads | null>(
    () =>
      link.data_download_enabled
        ? {
            base: (id) => `/s/${encodeURIComponent(token)}/download/${encodeURIComponent(id)}`,
            parameters,
            keep: new URLSearchParams({ query }).toString(),
          }
        : null,
    [link.data_download_enabled, token, query, parametersKey],
  ); // eslint-disable-line react-hooks/exhaustive-deps
  // Inside an iframe: events to the embedding page, and filters from it when the link allows parameters.
  const setFromParent = useCallback((next: Record<string, string>, nextTz: string | null | undefined) => {
    setValues((v) => ({ ...v, ...next }));
    if (nextTz !== undefined) setTz(nextTz);
    setNow(Date.now());
  }, []);
  const contentRef = useRef<HTMLElement>(null);
  useEmbedEvents({
    dashboardId: dashboard.id,
    reportIds: reports.map((r) => r.id),
    values: eff.values,
    tz,
    defs,
    zones,
    fixed,
    contentRef,
    onSetFilters: withBar && link.parameters_enabled ? setFromParent : null,
  });
  const palette = paletteFor(dashboard.color_scheme);
  // The dashboard's colour map (series_colors), read-only: a value keeps the colour it has on the dashboard;
  // values the dashboard never showed get the next free colours here without being saved (no writes from a link).
  const colorMap = useDashboardColors(dashboard.id, dashboard.series_colors, palette.length, false);
  const width = typeof dashboard.default_page_width === 'number' && dashboard.default_page_width >= 320 ? dashboard.default_page_width : 1600;
  const problems = [...view.problems, ...(withBar ? [...initial.problems, ...eff.notes] : [])];

  return (
    <main
      ref={contentRef}
      className="page page--dashboard public-link"
      style={{ maxWidth: width + 48 }}
      data-testid="public-dashboard"
      data-color-mode={link.color_mode}
    >
      {link.toolbar_enabled ? (
        <header className="page-header page-header--dashboard public-toolbar" data-testid="public-toolbar">
          <div>
            <h1>{dashboard.name}</h1>
            {dashboard.description ? <p className="muted page-header__desc">{dashboard.description}</p> : null}
          </div>
          <div className="page-header__meta">
            {poll.error ? (
              <span className="badge badge--error" role="alert">
                {poll.error}
              </span>
            ) : null}
            {link.refresh_enabled ? (
              <button
                type="button"
                className="button button--small"
                data-testid="public-refresh"
                disabled={poll.refreshing}
                onClick={() => {
                  refresh();
                  setNow(Date.now());
                  setRefreshNonce((n) => n + 1);
                }}
              >
                <span className={poll.running ? 'spin' : undefined} aria-hidden="true">
                  ↻
                </span>{' '}
                Refresh
              </button>
            ) : null}
            <Downloads view={view} token={token} query={query} parameters={parameters} order={tiles.map((t) => t.reportId)} />
          </div>
        </header>
      ) : null}
      {withBar ? (
        <FilterBar
          defs={defs}
          values={eff.values}
          options={options}
          zone={zone}
          applyImmediately={dashboard.filters_configuration?.apply_immediately !== false}
          timeZones={zones}
          tz={tz}
          problems={problems}
          onCommit={(changes, nextTz) => {
            setValues((v) => ({ ...v, ...changes }));
            if (nextTz !== undefined) setTz(nextTz);
            setNow(Date.now());
            writeHash(changes, nextTz);
          }}
          onReset={() => {
            setValues({});
            setTz(null);
            setNow(Date.now());
            writeHash({}, undefined, true);
          }}
        />
      ) : problems.length ? (
        <p className="alert alert--error" role="status">
          {problems.join(' ')}
        </p>
      ) : null}
      {tiles.length === 0 ? (
        <section className="empty-state">
          <h2>This dashboard has no reports yet</h2>
        </section>
      ) : (
        <DashboardColors.Provider value={colorMap}>
          <div className="dashboard-grid" data-testid="dashboard-grid">
            {tiles.map((t) => (
              <Tile
                key={t.reportId}
                dashboardId={dashboard.id}
                tile={t}
                palette={palette}
                waitingFor={waitingFor}
                zone={zone}
                downloads={downloads}
                maximized={maximizedId === t.reportId}
                onMaximize={onMaximize}
                whenNear
              />
            ))}
          </div>
        </DashboardColors.Provider>
      )}
      <footer className="public-footer">
        <a href="/" target="_blank" rel="noreferrer">
          <Logo size={14} /> Made with Cairn
        </a>
      </footer>
    </main>
  );
}

export default function PublicLink({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.state === 'password') return <PasswordPage error={actionData?.error ?? null} />;
  return (
    <ThemeScope>
      <PublicDashboard view={loaderData.view} token={loaderData.token} query={loaderData.query} firstStatus={loaderData.initial} />
    </ThemeScope>
  );
}

/** Refusals with a fixed explanation; without `text`, the API's detail (which names what to fix) is shown. */
const REFUSALS: Record<string, { title: string; text?: string }> = {
  ip_not_allowed: {
    title: 'Not available from your network',
    text: 'This link can be opened only from certain network addresses. Ask the person who shared it.',
  },
  signature_missing: { title: 'Open this dashboard from its application', text: 'This link works only inside the application that embeds it.' },
  signature_invalid: {
    title: 'This address is not valid',
    text: 'The signed address was changed or belongs to another link. Reload the page that embeds the dashboard.',
  },
  signature_expired: { title: 'This address has expired', text: 'Reload the page that embeds the dashboard to get a fresh one.' },
  signature_expiry_too_far: {
    title: 'This address is not valid',
    text: 'The signed address expires more than a year from now. The application that embeds the dashboard must sign it with an earlier expiry.',
  },
  signed_parameters_invalid: { title: 'The filter values of this address cannot be applied' },
};

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const payload = isRouteErrorResponse(error) ? (error.data as { code?: string; message?: string } | null) : null;
  const known = payload?.code ? REFUSALS[payload.code] : undefined;
  const title =
    known?.title ??
    (status === 404
      ? 'This link does not exist'
      : status === 429
        ? 'Too many requests'
        : status >= 500
          ? 'Temporarily unavailable'
          : 'This link cannot be opened');
  const text =
    known?.text ??
    (status === 404
      ? 'The link may have been deleted, or the address is incomplete. Ask the person who shared it for a new one.'
      : (payload?.message ?? 'Please try again later.'));
  return (
    <main className="error-page" data-status={status} data-reason={payload?.code ?? ''}>
      <p className="error-page__status">{status}</p>
      <h1>{title}</h1>
      <p>{text}</p>
    </main>
  );
}
