import { atom } from 'jotai';
import type { Theme } from './theme-boot';

export { readStoredTheme, storeTheme, type Theme } from './theme-boot';

/** The colour mode of the page; the app's ThemeScope seeds it, the toggle changes it. */
export const themeAtom = atom<Theme>('light');
