import { atom } from 'jotai';

export type Theme = 'light' | 'dark';
export const THEME_STORAGE_KEY = 'cairn-theme';

/** The colour mode of the page; the root seeds it, the toggle changes it. */
export const themeAtom = atom<Theme>('light');

export function readStoredTheme(): Theme | null {
  try {
    const v = window.localStorage.getItem(THEME_STORAGE_KEY);
    return v === 'dark' || v === 'light' ? v : null;
  } catch {
    console.warn('Cairn: local storage is unavailable; the colour mode will not be remembered.');
    return null;
  }
}

export function storeTheme(theme: Theme): void {
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    console.warn('Cairn: local storage is unavailable; the colour mode will not be remembered.');
  }
}

/**
 * Runs before first paint: `?theme=` wins, then the stored choice. Kept tiny and inline so the page never
 * flashes the wrong colours.
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var q=new URLSearchParams(location.search).get('theme');var t=q==='dark'||q==='light'?q:null;if(!t){try{t=localStorage.getItem('${THEME_STORAGE_KEY}')}catch(e){}}if(t==='dark'||t==='light')document.documentElement.setAttribute('data-theme',t)}catch(e){}})();`;
