/**
 * Loads the options of the query-driven dropdowns in the report editor's filter bar (the dashboard page
 * gets them with its status poll; the editor has no poll): one `POST /app/reports/filter-options/{id}`
 * per dropdown with the dashboard and the values in force, again whenever the values change (a child
 * dropdown follows its parent). An options query still running is asked again shortly; a failure
 * leaves the dropdown open for typed values and is named under the filter bar.
 */
import { useEffect, useState } from 'react';
import type { FilterDef, FilterOption, InputParameters } from '../../lib/filters';

const RETRIES = 5;
const RETRY_MS = 2000;

export function useFilterOptions(dashboardId: string, defs: FilterDef[], parameters: InputParameters) {
  const [options, setOptions] = useState<Record<string, FilterOption[] | undefined>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const queried = defs.filter((d) => d.queryOptions && !d.manualOptions && !d.hidden);
  const key = JSON.stringify([dashboardId, queried.map((d) => d.id), parameters]);

  useEffect(() => {
    if (queried.length === 0) return;
    const controller = new AbortController();
    const load = async (def: FilterDef, attempt: number): Promise<void> => {
      let res: Response;
      let body = null as { options?: FilterOption[]; errors?: { code?: string; detail?: string }[] } | null;
      try {
        res = await fetch(`/app/reports/filter-options/${encodeURIComponent(def.id)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ dashboard_id: dashboardId, parameters }),
          signal: controller.signal,
        });
        body = (await res.json().catch(() => null)) as typeof body;
      } catch {
        if (controller.signal.aborted) return;
        res = new Response(null, { status: 503 });
      }
      if (controller.signal.aborted) return;
      if (res.ok && Array.isArray(body?.options)) {
        setOptions((o) => ({ ...o, [def.variable]: body!.options }));
        setProblems(({ [def.variable]: _, ...rest }) => rest);
        return;
      }
      const error = body?.errors?.[0];
      const retry = (res.status === 503 || (error?.code === 'invalid_state' && /still running/i.test(error.detail ?? ''))) && attempt < RETRIES;
      if (retry) {
        await new Promise((r) => setTimeout(r, RETRY_MS));
        if (!controller.signal.aborted) return load(def, attempt + 1);
        return;
      }
      setOptions((o) => ({ ...o, [def.variable]: [] }));
      setProblems((p) => ({
        ...p,
        [def.variable]: `The options of “${def.label}” could not be loaded: ${error?.detail ?? `the app answered ${res.status}.`}`,
      }));
    };
    for (const def of queried) void load(def, 0);
    return () => controller.abort();
    // `key` stands for the dashboard, the dropdowns and the values in force.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return { options, problems: Object.values(problems) };
}
