/**
 * Recently opened dashboards, kept per user in this browser (localStorage under a key with the user's
 * id): the dashboard page remembers each visit, the home page lists the latest first. Nothing here is
 * trusted: the home page shows only dashboards the API still lists for the user.
 */
export interface RecentDashboard {
  id: string;
  name: string;
  /** When it was last opened (ms since the epoch). */
  at: number;
}

export const RECENT_LIMIT = 8;
const PREFIX = 'cairn:recent-dashboards';

/** Pure: the list after opening `opened` at `at` (latest first, no duplicates, at most RECENT_LIMIT). */
export function withVisit(list: readonly RecentDashboard[], opened: { id: string; name: string }, at: number): RecentDashboard[] {
  return [{ id: opened.id, name: opened.name, at }, ...list.filter((d) => d.id !== opened.id)].slice(0, RECENT_LIMIT);
}

/** Pure: reads what was stored, dropping anything malformed. */
export function parseRecent(raw: string | null): RecentDashboard[] {
  if (!raw) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value
    .filter((d): d is RecentDashboard => Boolean(d) && typeof d.id === 'string' && typeof d.name === 'string' && typeof d.at === 'number')
    .slice(0, RECENT_LIMIT);
}

function storageKey(userKey: string): string {
  return `${PREFIX}:${userKey}`;
}

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function readRecent(userKey: string): RecentDashboard[] {
  return parseRecent(storage()?.getItem(storageKey(userKey)) ?? null);
}

export function rememberDashboard(userKey: string, opened: { id: string; name: string }, at = Date.now()): void {
  const s = storage();
  if (!s) return;
  try {
    s.setItem(storageKey(userKey), JSON.stringify(withVisit(readRecent(userKey), opened, at)));
  } catch {
    // A full or disabled storage only means no recent list.
  }
}
