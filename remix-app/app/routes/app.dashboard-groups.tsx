/**
 * `POST /app/dashboard-groups`: the dashboard list's group management (components/groups), as the
 * signed-in user. Intents: create, update, delete, sort (POST /dashboard_groups/sort: the API takes the
 * documented GET-with-body form as POST too, and browsers' fetch cannot send a GET body) and members
 * (one dashboard's groups). Answers `{ok: true}` or `{errors}` by form field (see errorsByField) with
 * the API's status, so each message shows next to its field.
 */
import { data } from 'react-router';
import type { Route } from './+types/app.dashboard-groups';
import { requireApi, type ApiClient } from '../lib/api.server';
import { errorsByField, FORM, type ApiErrorItem } from '../lib/editor-forms';
import { groupBody, membershipChanges } from '../lib/dashboard-groups';
import type { ListDocument } from '../lib/types';
import { readForm } from '../lib/forms.server';

export type GroupActionResult = { ok: true; intent: string } | { ok?: false; intent: string; errors: Record<string, string[]> };

async function send(api: ApiClient, intent: string, method: string, path: string, body?: unknown, jsonapi = true) {
  const res = await api.raw(method, path, body === undefined ? {} : { body, jsonapi });
  if (res.status >= 200 && res.status < 300) return null;
  if (res.status === 401) throw api.toResponse({ status: 401, code: 'unauthorized', message: '' });
  const items = (res.body as { errors?: ApiErrorItem[] } | null)?.errors;
  const errors = items?.length ? errorsByField(items) : { [FORM]: [`The request failed with status ${res.status}.`] };
  return data<GroupActionResult>({ intent, errors }, { status: res.status >= 500 ? 503 : res.status });
}

const ok = (intent: string): GroupActionResult => ({ ok: true, intent });

export async function action({ request, context }: Route.ActionArgs) {
  const api = requireApi(request, context);
  const form = await readForm(request);
  const intent = String(form.get('intent') ?? '');
  const id = String(form.get('id') ?? '');
  const path = `/dashboard_groups/${encodeURIComponent(id)}`;
  if (intent === 'create' || intent === 'update') {
    const fields = {
      name: String(form.get('name') ?? ''),
      description: String(form.get('description') ?? ''),
      ...(intent === 'create' ? { personal: form.get('personal') === 'on' } : {}),
    };
    const failed =
      intent === 'create'
        ? await send(api, intent, 'POST', '/dashboard_groups', groupBody(fields))
        : await send(api, intent, 'PATCH', path, groupBody(fields, id));
    return failed ?? ok(intent);
  }
  if (intent === 'delete') return (await send(api, intent, 'DELETE', path)) ?? ok(intent);
  if (intent === 'sort') {
    const ids = form.getAll('ids').map(String);
    return (await send(api, intent, 'POST', '/dashboard_groups/sort', { dashboard_group_ids: ids }, false)) ?? ok(intent);
  }
  if (intent === 'members') {
    const dashboardId = String(form.get('dashboard') ?? '');
    const ticked = new Set(form.getAll('groups').map(String));
    const editable = new Set(form.getAll('editable').map(String));
    // The current members come from the API, not the page, so a change made meanwhile is not undone.
    const list = await api.call<ListDocument<{ name: string }>>('GET', '/dashboard_groups?page[size]=200');
    if (!list.ok) return data<GroupActionResult>({ intent, errors: { [FORM]: [list.problem.message] } }, { status: list.problem.status });
    const groups = (list.body.data ?? [])
      .filter((g) => editable.has(g.id))
      .map((g) => {
        const rel = g.relationships?.dashboards?.data;
        return { id: g.id, dashboardIds: Array.isArray(rel) ? rel.map((r) => r.id) : [] };
      });
    for (const change of membershipChanges(groups, dashboardId, ticked)) {
      const failed = await send(
        api,
        intent,
        'PATCH',
        `/dashboard_groups/${encodeURIComponent(change.id)}`,
        groupBody({ dashboardIds: change.dashboardIds }, change.id),
      );
      if (failed) return failed;
    }
    return ok(intent);
  }
  return data<GroupActionResult>({ intent, errors: { [FORM]: ['Unknown action.'] } }, { status: 400 });
}
