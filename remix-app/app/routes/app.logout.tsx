import { redirect } from 'react-router';
import type { Route } from './+types/app.logout';
import { requireApi } from '../lib/api.server';
import { clearSessionCookie, readSessionToken } from '../lib/session.server';

/** Signing out is a POST (a link or prefetch must never end a session). */
export function loader() {
  return redirect('/app/');
}

export async function action({ request, context }: Route.ActionArgs) {
  if (readSessionToken(request)) {
    // The session ends on the API; if that call fails the cookie still goes away.
    await requireApi(request, context).call('DELETE', '/auth/session');
  }
  return redirect('/app/login', { headers: { 'Set-Cookie': clearSessionCookie(request) } });
}
