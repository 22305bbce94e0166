/** The frame of every docs page: skip link, announcement, navbar, sidebar, main, footer, progress bar. */
import { lazy, Suspense, useEffect, useMemo, useState, type ReactNode } from 'react';
import { STORAGE_KEYS, storageGet } from '../../lib/docs-storage';
import { AnnouncementBar } from './AnnouncementBar';
import { siteConfig } from './config';
import { Footer } from './Footer';
import { useMobileSidebar } from './navbar/useMobileSidebar';
import { Navbar } from './navbar/Navbar';
import { navbarContext, resolveNavbarItems, type SidebarGroupData } from './navbar/resolve';
import { RouteProgress } from './progress/RouteProgress';
import { DocsSidebar, DocsSidebarMenu } from './sidebar/DocsSidebar';

// Loaded when the mobile menu first opens: most visits never open it.
const MobileSidebar = lazy(() => import('./navbar/MobileSidebar'));

/** Stored preferred docs versions, read after mounting (the server draws the latest). */
function usePreferredVersions(): Record<string, string> {
  const [prefs, setPrefs] = useState<Record<string, string>>({});
  useEffect(() => {
    const read = () => {
      const next: Record<string, string> = {};
      for (const id of Object.keys(siteConfig.docs.plugins)) {
        const v = storageGet(STORAGE_KEYS.preferredVersion(id));
        if (v) next[id] = v;
      }
      // Keep the same object when nothing changed: a new one re-resolves the navbar and re-renders the
      // whole frame (the first read after hydration almost always finds nothing stored).
      setPrefs((prev) => (sameStrings(prev, next) ? prev : next));
    };
    read();
    window.addEventListener('storage', read);
    return () => window.removeEventListener('storage', read);
  }, []);
  return prefs;
}

function sameStrings(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

export function DocsLayout({ sidebar, drafts, children }: { sidebar: SidebarGroupData[]; drafts: string[]; children: ReactNode }) {
  const prefs = usePreferredVersions();
  const items = useMemo(
    () =>
      resolveNavbarItems(
        siteConfig.navbar.items,
        navbarContext(sidebar, drafts, siteConfig.docs.plugins, (id) => prefs[id] ?? null),
      ),
    [sidebar, drafts, prefs],
  );
  const mobile = useMobileSidebar();
  // Tells tests (and anyone curious) that the page is interactive. Set a frame and a task after
  // hydration, so that state the first effects set (stored colour mode, dismissed announcement bar,
  // preferred versions) has been drawn by then.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => document.documentElement.setAttribute('data-docs-ready', ''), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return (
    <div className="docs-root">
      <a href="#docs-main" className="skip-link">
        Skip to main content
      </a>
      <AnnouncementBar />
      <Navbar items={items} mobileOpen={mobile.open} onToggleMobile={mobile.toggle} />
      {mobile.open ? (
        <Suspense fallback={null}>
          <MobileSidebar
            items={items}
            secondary={sidebar.length > 0 ? <DocsSidebarMenu groups={sidebar} label="Docs sidebar (mobile)" /> : null}
            onClose={() => mobile.setOpen(false)}
          />
        </Suspense>
      ) : null}
      <div className="docs-wrapper">
        <DocsSidebar groups={sidebar} />
        <main id="docs-main" className="docs-main" tabIndex={-1}>
          {/* A page that fails while the server renders it is drawn again in the browser, where the
              route's error boundary shows the crash page with the whole error (the server's is hidden). */}
          <Suspense fallback={null}>{children}</Suspense>
        </main>
      </div>
      <Footer />
      <RouteProgress />
    </div>
  );
}

/** A bare frame for when the docs frame itself failed (a bad navbar config): no navbar items. */
export function BareDocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="docs-root">
      <a href="#docs-main" className="skip-link">
        Skip to main content
      </a>
      <main id="docs-main" className="docs-main docs-main--bare" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
