/**
 * Colour mode of the docs: light by default; the switch cycles light → dark → system. An explicit
 * light or dark choice is stored; "system" is stored as such and follows prefers-color-scheme (also
 * live). With nothing stored the config's default mode applies (or the system, when the config says
 * to respect it). The inline script in the document head applies the same rule before first paint.
 */
import { useCallback, useEffect, useLayoutEffect, useState } from 'react';
import { STORAGE_KEYS, storageGet, storageSet } from '../../lib/docs-storage';
import { siteConfig } from './config';

export type ColorMode = 'light' | 'dark';
export type ColorChoice = ColorMode | 'system';

const DARK_QUERY = '(prefers-color-scheme: dark)';

function readChoice(value: string | null): ColorChoice | null {
  return value === 'light' || value === 'dark' || value === 'system' ? value : null;
}

/** The mode a choice leads to. */
function resolveColorMode(choice: ColorChoice | null, systemDark: boolean, config = siteConfig.colorMode): ColorMode {
  if (choice === 'light' || choice === 'dark') return choice;
  if (choice === 'system' || config.respectPrefersColorScheme) return systemDark ? 'dark' : 'light';
  return config.defaultMode;
}

export function nextChoice(choice: ColorChoice): ColorChoice {
  return choice === 'light' ? 'dark' : choice === 'dark' ? 'system' : 'light';
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK_QUERY).matches;
}

function apply(mode: ColorMode): void {
  document.documentElement.setAttribute('data-theme', mode);
}

/**
 * The current choice and mode. The first render uses the default (so it matches the server); the
 * stored choice is read after mounting. `?theme=light|dark` in the URL wins for the page view.
 */
export function useColorMode() {
  const [choice, setChoiceState] = useState<ColorChoice>(siteConfig.colorMode.defaultMode);
  const [mode, setMode] = useState<ColorMode>(siteConfig.colorMode.defaultMode);

  useEffect(() => {
    const fromUrl = readChoice(new URLSearchParams(window.location.search).get('theme'));
    const stored = readChoice(storageGet(STORAGE_KEYS.theme));
    const c = fromUrl === 'system' ? null : fromUrl;
    const initial = c ?? stored ?? (siteConfig.colorMode.respectPrefersColorScheme ? 'system' : siteConfig.colorMode.defaultMode);
    setChoiceState(initial);
    setMode(resolveColorMode(initial, systemDark()));
  }, []);

  // A layout effect (Preact runs passive effects only after the next frame): the listener is there as
  // soon as "system" is chosen, and a change of the system's mode in between is picked up at once.
  useLayoutEffect(() => {
    if (choice !== 'system' || typeof matchMedia !== 'function') return;
    const mq = matchMedia(DARK_QUERY);
    const onChange = () => {
      const m = mq.matches ? 'dark' : 'light';
      setMode(m);
      apply(m);
    };
    onChange();
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, [choice]);

  const setChoice = useCallback((next: ColorChoice) => {
    const m = resolveColorMode(next, systemDark());
    setChoiceState(next);
    setMode(m);
    apply(m);
    storageSet(STORAGE_KEYS.theme, next);
  }, []);

  return { choice, mode, setChoice };
}
