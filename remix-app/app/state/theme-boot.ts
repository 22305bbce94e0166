import { storageGet, storageSet } from '../lib/docs-storage';

/**
 * The analyst app's colour mode outside jotai: the type, the stored choice and the inline boot script.
 * The root imports this (every page, the docs included); the atom lives in ./theme, which only the
 * app's own pages load.
 */
export type Theme = 'light' | 'dark';
const THEME_STORAGE_KEY = 'cairn-theme';

/** The stored choice ("system" follows the operating system); storage problems warn once (docs-storage). */
export function readStoredTheme(): Theme | null {
  const v = storageGet(THEME_STORAGE_KEY);
  if (v === 'system') return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  return v === 'dark' || v === 'light' ? v : null;
}

export function storeTheme(theme: Theme): void {
  storageSet(THEME_STORAGE_KEY, theme);
}

/**
 * Runs before first paint: `?theme=` wins, then the stored choice ("system": the operating system's). Kept tiny and inline so the page never
 * flashes the wrong colours.
 */
export const THEME_BOOT_SCRIPT = `(function(){try{var q=new URLSearchParams(location.search).get('theme');var t=q==='dark'||q==='light'?q:null;if(!t){try{t=localStorage.getItem('${THEME_STORAGE_KEY}')}catch(e){}}if(t==='system')t=matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light';if(t==='dark'||t==='light')document.documentElement.setAttribute('data-theme',t)}catch(e){}})();`;
