/**
 * The search modal (a lazily loaded chunk: MiniSearch and the indexes load only when search is first
 * used). A combobox input over a listbox of results, keyboard navigation (↑/↓/Enter/Escape), focus
 * kept inside the dialog, a status line (loading, stalled after 300 ms, no results) and insights.
 * Written with hooks only (no React-19-only APIs) so it also runs under preact/compat.
 */
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { useNavigate } from 'react-router';
import { MAX_QUERY_LENGTH, markPieces, SEARCH_TAGS, searchAll, termSet, type DocsSearch, type DocsSearchHit } from '@cairn/docs';
import { searchTagVersions } from '@cairn/docs/search-manifest';
import { hitHref } from './hit-href';
import { createInsights, sendInsights } from './insights';
import { createIndexLoader } from './loader';
import { createStallTimer, type SearchStatus } from './status';
import './search.css';

const loader = createIndexLoader({ tags: SEARCH_TAGS, versions: searchTagVersions() });
const insights = createInsights({ send: sendInsights });

if (typeof window !== 'undefined') {
  // A reader leaving the page: what is left goes as a beacon.
  window.addEventListener('pagehide', () => insights.flush(true));
}

/** Starts fetching every index (on first hover or focus of the search button). */
export function preloadSearch(): void {
  void loader.loadAll();
}

export const RESIZE_DEBOUNCE_MS = 20;

function Marked({ text, terms }: { text: string; terms: ReadonlySet<string> }) {
  return <>{markPieces(text, terms).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}</>;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Keeps Tab and Shift+Tab inside `root`. */
function trapFocus(e: KeyboardEvent<HTMLElement>, root: HTMLElement | null) {
  if (e.key !== 'Tab' || !root) return;
  const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.tabIndex >= 0 && !el.hidden && el.offsetParent !== null);
  if (items.length === 0) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/** Sets --search-vh from the window height (mobile browsers' moving toolbars), debounced by 20 ms. */
function useViewportHeight(ref: RefObject<HTMLElement | null>) {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const apply = () => ref.current?.style.setProperty('--search-vh', `${window.innerHeight * 0.01}px`);
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(apply, RESIZE_DEBOUNCE_MS);
    };
    apply();
    window.addEventListener('resize', onResize);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('resize', onResize);
    };
  }, [ref]);
}

/** The loaded indexes (null while loading) and the status line's state. */
function useIndexes(): { indexes: DocsSearch[] | null; status: SearchStatus } {
  const [indexes, setIndexes] = useState<DocsSearch[] | null>(() => loader.ready());
  const [status, setStatus] = useState<SearchStatus>(indexes ? 'idle' : 'loading');
  useEffect(() => {
    if (indexes) return;
    let alive = true;
    const stall = createStallTimer(() => alive && setStatus('stalled'));
    void loader.loadAll().then((all) => {
      stall.cancel();
      if (!alive) return;
      setIndexes(all);
      setStatus('idle');
    });
    return () => {
      alive = false;
      stall.cancel();
    };
  }, [indexes]);
  return { indexes, status };
}

export interface SearchModalProps {
  onClose: () => void;
  initialQuery?: string;
}

export default function SearchModal({ onClose, initialQuery = '' }: SearchModalProps) {
  const navigate = useNavigate();
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState(initialQuery.slice(0, MAX_QUERY_LENGTH));
  const [active, setActive] = useState(0);
  const { indexes, status } = useIndexes();
  useViewportHeight(dialog);

  const hits = useMemo(() => (indexes && query.trim() ? searchAll(indexes, query) : []), [indexes, query]);
  const trimmed = query.trim();

  useEffect(() => setActive(0), [hits]);
  useEffect(() => {
    if (indexes && trimmed)
      insights.viewed(
        trimmed,
        hits.map((h) => h.sectionRoute),
      );
  }, [indexes, trimmed, hits]);

  const close = useCallback(() => {
    insights.flush();
    onClose();
  }, [onClose]);

  // Focus the input, keep the page behind from scrolling. A layout effect: the input has the focus
  // when the dialog first shows, so what the reader types right after Ctrl+K lands in it.
  useLayoutEffect(() => {
    input.current?.focus();
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
    };
  }, []);

  const choose = (hit: DocsSearchHit, position: number) => {
    insights.chosen(trimmed, hit.sectionRoute, position + 1);
    close();
    navigate(hitHref(hit));
  };

  // The active option stays visible while moving through a long list.
  useEffect(() => {
    document.getElementById(`${id}-option-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [active, id]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
      return;
    }
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && hits.length > 0) {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((a) => (a + step + hits.length) % hits.length);
      return;
    }
    trapFocus(e, dialog.current);
  };

  const onResultClick = (e: MouseEvent<HTMLAnchorElement>, hit: DocsSearchHit, i: number) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return; // new tab/window: the browser's
    e.preventDefault();
    choose(hit, i);
  };

  const listId = `${id}-listbox`;
  const statusText =
    status === 'stalled'
      ? 'Loading the search index…'
      : !indexes || !trimmed
        ? ''
        : hits.length === 0
          ? 'No results found.'
          : `${hits.length} result${hits.length === 1 ? '' : 's'}`;

  return createPortal(
    <div className="search-modal" data-testid="search-modal">
      <div className="search-modal__backdrop" onClick={close} aria-hidden="true" />
      <div ref={dialog} className="search-modal__dialog" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`} onKeyDown={onKeyDown}>
        <h2 id={`${id}-title`} className="visually-hidden">
          Search the documentation
        </h2>
        <form
          className="search-modal__form"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            const hit = hits[active];
            if (hit) choose(hit, active);
          }}
          onReset={(e) => {
            e.preventDefault();
            setQuery('');
            input.current?.focus();
          }}
        >
          <label htmlFor={`${id}-input`} className="search-modal__label">
            <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
              <path d="M14.4 13l4.3 4.3-1.4 1.4-4.3-4.3a7.5 7.5 0 1 1 1.4-1.4zM8.5 14.5a6 6 0 1 0 0-12 6 6 0 0 0 0 12z" fill="currentColor" />
            </svg>
            <span className="visually-hidden">Search</span>
          </label>
          <input
            ref={input}
            id={`${id}-input`}
            className="search-modal__input"
            type="search"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={hits.length > 0}
            aria-controls={listId}
            aria-activedescendant={hits.length > 0 ? `${id}-option-${active}` : undefined}
            autoComplete="off"
            autoCorrect="off"
            autoCapitalize="off"
            spellCheck={false}
            enterKeyHint="go"
            placeholder="Search..."
            maxLength={MAX_QUERY_LENGTH}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value.slice(0, MAX_QUERY_LENGTH))}
            data-testid="search-input"
          />
          <button type="reset" className="search-modal__clear" aria-label="Clear" title="Clear" hidden={!query}>
            <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
              <path d="M10 8.6L15.6 3 17 4.4 11.4 10l5.6 5.6-1.4 1.4-5.6-5.6L4.4 17 3 15.6 8.6 10 3 4.4 4.4 3z" fill="currentColor" />
            </svg>
          </button>
          <button type="submit" className="visually-hidden" aria-label="Submit" tabIndex={-1}>
            Submit
          </button>
          <button type="button" className="search-modal__cancel" onClick={close}>
            Cancel
          </button>
        </form>
        <div className="search-modal__body">
          <p className="search-modal__status" role="status" aria-live="polite" data-status={status} data-testid="search-status">
            {statusText}
          </p>
          <ul id={listId} role="listbox" aria-label="Search results" className="search-modal__results" data-query={trimmed} data-testid="search-results">
            {hits.map((hit, i) => {
              const terms = termSet(hit.terms);
              const href = hitHref(hit);
              return (
                <li
                  key={hit.sectionRoute}
                  id={`${id}-option-${i}`}
                  role="option"
                  aria-selected={i === active}
                  className={`search-hit${i === active ? ' search-hit--active' : ''}`}
                  onMouseMove={() => i !== active && setActive(i)}
                >
                  <a href={href} tabIndex={-1} onClick={(e) => onResultClick(e, hit, i)} data-route={hit.sectionRoute}>
                    <span className="search-hit__title">
                      <Marked text={hit.sectionTitle} terms={terms} />
                    </span>
                    {hit.sectionTitle !== hit.pageTitle ? <span className="search-hit__page">{hit.pageTitle}</span> : null}
                    {hit.snippet ? (
                      <span className="search-hit__snippet">
                        <Marked text={hit.snippet} terms={terms} />
                      </span>
                    ) : null}
                  </a>
                </li>
              );
            })}
          </ul>
        </div>
        <footer className="search-modal__footer" aria-hidden="true">
          <span>
            <kbd>↵</kbd> to select
          </span>
          <span>
            <kbd>↑</kbd>
            <kbd>↓</kbd> to navigate
          </span>
          <span>
            <kbd>esc</kbd> to close
          </span>
        </footer>
      </div>
    </div>,
    document.body,
  );
}
