/**
 * localStorage for the docs site (and the app's colour mode): colour mode, announcement dismissal and
 * id, preferred docs version per docs plugin. When the browser refuses storage (private modes,
 * blocked cookies) the first use logs exactly one console warning and every call does nothing.
 * On the server every call does nothing.
 */

export const STORAGE_KEYS = {
  theme: 'cairn-theme',
  announcementDismissed: 'cairn-docs.announcement.dismiss',
  announcementId: 'cairn-docs.announcement.id',
  preferredVersion: (pluginId: string) => `cairn-docs.preferred-version.${pluginId}`,
} as const;

const STORAGE_WARNING =
  'Cairn: the browser does not allow local storage, so settings (colour mode, dismissed announcement, preferred docs version) will not be remembered.';

let backing: Storage | null | undefined;
let warned = false;

function warnOnce(cause: unknown): void {
  if (warned) return;
  warned = true;
  console.warn(STORAGE_WARNING, cause);
}

function local(): Storage | null {
  if (backing !== undefined) return backing;
  if (typeof window === 'undefined') return null; // server render: not cached, the browser decides
  try {
    const s = window.localStorage;
    const probe = '__cairn_storage_probe__';
    s.setItem(probe, probe);
    s.removeItem(probe);
    backing = s;
  } catch (err) {
    backing = null;
    warnOnce(err);
  }
  return backing;
}

export function storageGet(key: string): string | null {
  try {
    return local()?.getItem(key) ?? null;
  } catch (err) {
    warnOnce(err);
    return null;
  }
}

export function storageSet(key: string, value: string): void {
  try {
    local()?.setItem(key, value);
  } catch (err) {
    warnOnce(err);
  }
}
