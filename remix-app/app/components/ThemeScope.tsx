import { createStore, Provider } from 'jotai';
import { useEffect, useState, type ReactNode } from 'react';
import { useRouteLoaderData } from 'react-router';
import { themeAtom, readStoredTheme, type Theme } from '../state/theme';

/**
 * The analyst app's state scope: one jotai store per rendered document (a worker isolate serves many
 * requests), seeded with the colour mode (`?theme=` from the root loader, else what the boot script
 * applied, else the stored choice). Only the app's own layouts use it (the app, sharing links, the print
 * view): the docs pages keep their colour mode without jotai, which stays out of their bundle.
 */
export function ThemeScope({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<{ theme: Theme | null }>('root');
  const urlTheme = data?.theme ?? null;
  const [store] = useState(() => {
    const s = createStore();
    s.set(themeAtom, urlTheme ?? 'light');
    return s;
  });
  useEffect(() => {
    const fromDom = document.documentElement.getAttribute('data-theme');
    const theme: Theme = urlTheme ?? (fromDom === 'dark' ? 'dark' : fromDom === 'light' ? 'light' : (readStoredTheme() ?? 'light'));
    store.set(themeAtom, theme);
    document.documentElement.setAttribute('data-theme', theme);
  }, [store, urlTheme]);
  return <Provider store={store}>{children}</Provider>;
}
