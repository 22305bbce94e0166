import type { MouseEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useActiveHeading } from './activeHeading';

export interface TocEntry {
  depth: 2 | 3;
  id: string;
  title: string;
}

function TocList({ toc, active, onClick }: { toc: TocEntry[]; active: string | null; onClick: (e: MouseEvent<HTMLAnchorElement>, id: string) => void }) {
  return (
    <ul className="toc__list">
      {toc.map((h) => (
        <li key={h.id} className={`toc__item toc__item--h${h.depth}`}>
          <a
            href={`#${h.id}`}
            className={`toc__link${h.id === active ? ' toc__link--active' : ''}`}
            aria-current={h.id === active ? 'location' : undefined}
            onClick={(e) => onClick(e, h.id)}
          >
            {h.title}
          </a>
        </li>
      ))}
    </ul>
  );
}

function useTocNavigate() {
  const navigate = useNavigate();
  const { search } = useLocation();
  return (e: MouseEvent<HTMLAnchorElement>, id: string) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return;
    e.preventDefault();
    navigate({ search, hash: `#${id}` });
  };
}

/** Headings 2–3 of the page beside the article; the one being read is highlighted. */
export function TocDesktop({ toc }: { toc: TocEntry[] }) {
  const active = useActiveHeading(toc.map((h) => h.id));
  const go = useTocNavigate();
  if (toc.length === 0) return null;
  return (
    <div className="toc-desktop">
      <nav aria-label="On this page" className="toc">
        <p className="toc__title">On this page</p>
        <TocList toc={toc} active={active} onClick={go} />
      </nav>
    </div>
  );
}

/** The same list above the article on small screens, folded. */
export function TocMobile({ toc }: { toc: TocEntry[] }) {
  const go = useTocNavigate();
  if (toc.length === 0) return null;
  return (
    <details className="toc-mobile">
      <summary>On this page</summary>
      <TocList
        toc={toc}
        active={null}
        onClick={(e, id) => {
          e.currentTarget.closest('details')?.removeAttribute('open');
          go(e, id);
        }}
      />
    </details>
  );
}
