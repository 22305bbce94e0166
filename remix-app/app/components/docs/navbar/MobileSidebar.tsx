/**
 * The mobile menu (viewport ≤ 996 px): a panel with the primary menu (the navbar's items) and, on docs
 * pages, the secondary menu (the docs sidebar) shown first, with "← Back to main menu" to reach the
 * primary one. It closes on navigation (also back/forward), Escape, the backdrop, the close button,
 * and when the viewport becomes desktop.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { NavbarBrand } from './Navbar';
import { hasExactMatch, NavbarItem, type ItemContext } from './items';
import type { PositionedItem } from './resolve';

export default function MobileSidebar({
  items,
  secondary,
  onClose,
}: {
  items: PositionedItem[];
  /** The docs sidebar menu, or null on pages without one. */
  secondary: ReactNode | null;
  onClose: () => void;
}) {
  const [panel, setPanel] = useState<'primary' | 'secondary'>(secondary ? 'secondary' : 'primary');
  const { pathname } = useLocation();
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    return () => opener?.focus?.();
  }, []);
  const ctx: ItemContext = { pathname, exactElsewhere: hasExactMatch(items, pathname), mobile: true };
  return (
    <>
      <div className="navbar-sidebar__backdrop" onClick={onClose} aria-hidden="true" />
      <div className="navbar-sidebar" role="dialog" aria-modal="true" aria-label="Navigation" data-testid="mobile-sidebar">
        <div className="navbar-sidebar__brand">
          <NavbarBrand />
          <button ref={closeRef} type="button" className="navbar__icon-button" aria-label="Close navigation bar" onClick={onClose}>
            <svg width="18" height="18" viewBox="0 0 15 15" aria-hidden="true">
              <path d="M1 1l13 13M14 1L1 14" stroke="currentColor" strokeWidth="1.6" />
            </svg>
          </button>
        </div>
        <div className={`navbar-sidebar__panels navbar-sidebar__panels--${panel}`}>
          <div className="navbar-sidebar__panel" data-menu="primary" hidden={panel !== 'primary'}>
            <ul className="menu__list">
              {items.map((item) =>
                item.kind === 'search' ? null : (
                  <li key={item.key} className="menu__list-item">
                    <NavbarItem item={item} ctx={ctx} />
                  </li>
                ),
              )}
            </ul>
          </div>
          {secondary ? (
            <div className="navbar-sidebar__panel" data-menu="secondary" hidden={panel !== 'secondary'}>
              <button type="button" className="navbar-sidebar__back" onClick={() => setPanel('primary')}>
                ← Back to main menu
              </button>
              {secondary}
            </div>
          ) : null}
        </div>
      </div>
    </>
  );
}
