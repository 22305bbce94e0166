/**
 * `POST /docs-insights`: batches of search events from the docs search (components/docs/search/insights.ts),
 * stored by the DocsInsights Durable Object. Any other method: 405.
 */
import type { Route } from './+types/docs-insights';
import { insightsEnv, problemResponse, readInsightsRequest, recordEvents } from '../lib/docs-insights.server';

export async function action({ request, context }: Route.ActionArgs) {
  const read = await readInsightsRequest(request);
  if ('response' in read) return read.response;
  return recordEvents(insightsEnv(context), read.events);
}

export function loader({ request }: Route.LoaderArgs) {
  return problemResponse(
    { status: 405, code: 'method_not_allowed', title: 'Method Not Allowed', detail: `${request.method} is not allowed here; use POST.` },
    { Allow: 'POST' },
  );
}
