import type { ApiClient } from './api.server.ts';
import type { SessionInfo } from './types.ts';

export function loadSession(api: ApiClient): Promise<SessionInfo> {
  return api.get<SessionInfo>('/auth/session');
}

export function displayName(user: SessionInfo['user']): string {
  const name = [user.firstname, user.lastname].filter(Boolean).join(' ').trim();
  return name || user.email;
}
