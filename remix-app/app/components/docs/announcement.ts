/**
 * The announcement bar stays until dismissed. The dismissal is stored with the bar's id; a bar with
 * another id (a new announcement) shows again and resets the flag.
 */
import { STORAGE_KEYS } from '../../lib/docs-storage';

export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

/** Reads (and updates) the stored state for bar `id`; true when it stays dismissed. */
export function syncAnnouncement(id: string, store: KeyValueStore): boolean {
  const storedId = store.get(STORAGE_KEYS.announcementId);
  const isNew = storedId !== id;
  store.set(STORAGE_KEYS.announcementId, id);
  if (isNew) store.set(STORAGE_KEYS.announcementDismissed, 'false');
  return !isNew && store.get(STORAGE_KEYS.announcementDismissed) === 'true';
}

export function dismissAnnouncement(store: KeyValueStore): void {
  store.set(STORAGE_KEYS.announcementDismissed, 'true');
}

export const DISMISSED_ATTRIBUTE = 'data-announcement-dismissed';

/** Inline script run before the bar is painted: hides a bar that the reader dismissed earlier. */
export function announcementBootScript(id: string): string {
  const k = JSON.stringify;
  return `(function(){try{var s=localStorage;if(s.getItem(${k(STORAGE_KEYS.announcementDismissed)})==='true'&&s.getItem(${k(STORAGE_KEYS.announcementId)})===${k(id)})document.documentElement.setAttribute(${k(DISMISSED_ATTRIBUTE)},'')}catch(e){}})();`;
}
