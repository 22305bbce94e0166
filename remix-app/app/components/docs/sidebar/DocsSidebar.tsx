/**
 * The docs sidebar: one collapsible category per group. The category of the current page is open;
 * opening another closes the rest, and navigating opens the new page's category and closes the others.
 * The sidebar itself is always shown on desktop (it has no hide button).
 */
import { useEffect, useId, useState } from 'react';
import { Link, useLocation } from 'react-router';
import type { SidebarGroupData } from '../navbar/resolve';
import { useCollapsible } from './collapse';

function activeGroup(groups: SidebarGroupData[], pathname: string): number {
  return groups.findIndex((g) => g.items.some((i) => i.route === pathname));
}

function Category({ group, open, onToggle, pathname }: { group: SidebarGroupData; open: boolean; onToggle: () => void; pathname: string }) {
  const ref = useCollapsible(!open);
  const id = useId();
  const containsActive = group.items.some((i) => i.route === pathname);
  return (
    <li className={`menu__category${open ? '' : ' menu__category--collapsed'}${containsActive ? ' menu__category--active' : ''}`}>
      <button type="button" className="menu__link menu__link--caret menu__category-label" aria-expanded={open} aria-controls={id} onClick={onToggle}>
        {group.label}
      </button>
      <ul ref={ref} id={id} className="menu__list menu__sublist">
        {group.items.map((item) => {
          const active = item.route === pathname;
          return (
            <li key={item.route} className="menu__list-item">
              <Link to={item.route} prefetch="intent" className={`menu__link${active ? ' menu__link--active' : ''}`} aria-current={active ? 'page' : undefined}>
                {item.title}
              </Link>
            </li>
          );
        })}
      </ul>
    </li>
  );
}

export function DocsSidebarMenu({ groups, label = 'Docs sidebar' }: { groups: SidebarGroupData[]; label?: string }) {
  const { pathname } = useLocation();
  const [open, setOpen] = useState(() => activeGroup(groups, pathname));
  useEffect(() => setOpen(activeGroup(groups, pathname)), [groups, pathname]);
  return (
    <nav aria-label={label} className="menu">
      <ul className="menu__list">
        {groups.map((g, i) => (
          <Category key={g.label} group={g} open={open === i} pathname={pathname} onToggle={() => setOpen(open === i ? -1 : i)} />
        ))}
      </ul>
    </nav>
  );
}

export function DocsSidebar({ groups }: { groups: SidebarGroupData[] }) {
  return (
    <aside className="docs-sidebar" data-testid="docs-sidebar">
      <DocsSidebarMenu groups={groups} />
    </aside>
  );
}
