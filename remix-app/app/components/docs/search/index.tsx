/**
 * The navbar's search item: a button with its keyboard hint that opens the search modal, also on
 * Ctrl+K / ⌘+K and on "/" (outside text fields). The modal, MiniSearch and the indexes are a lazy chunk:
 * nothing of them is in the page's first JavaScript; hovering or focusing the button starts loading
 * them. This item also marks the terms of a search in the page a result led to (`?_highlight=`).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { useLazy } from '../lazy/lazy';

type ModalModule = typeof import('./SearchModal');
const loadModal = (): Promise<ModalModule> => import('./SearchModal');
const loadHighlighter = () => import('./highlight');

/** Starts loading the modal chunk and the indexes; errors show when the modal is opened. */
function preload() {
  loadModal().then(
    (m) => m.preloadSearch(),
    () => {},
  );
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
}

/** Marks the search terms of the URL in the article, on every navigation that carries them. */
function useSearchHighlight() {
  const location = useLocation();
  useEffect(() => {
    if (!new URLSearchParams(location.search).has('_highlight')) return;
    let cancel = () => {};
    let alive = true;
    loadHighlighter().then(
      (m) => {
        if (alive) cancel = m.highlightWhenReady(m.highlightTerms(location.search), location.hash);
      },
      () => {},
    );
    return () => {
      alive = false;
      cancel();
    };
  }, [location.key, location.search, location.hash]);
}

function ModalSlot({ onClose }: { onClose: () => void }) {
  const { state, retry } = useLazy(loadModal);
  if (state.status === 'ready') {
    const Modal = state.value.default;
    return <Modal onClose={onClose} />;
  }
  if (state.status === 'loading' && !state.pastDelay) return null;
  return (
    <div className="search-loading" role="dialog" aria-modal="true" aria-label="Search" data-testid="search-loading">
      {state.status === 'loading' ? (
        <p role="status">Loading search…</p>
      ) : (
        <>
          <p role="alert">Search could not be loaded: {state.error.message}</p>
          <button type="button" className="button" onClick={retry}>
            Retry
          </button>
          <button type="button" className="button button--ghost" onClick={onClose}>
            Cancel
          </button>
        </>
      )}
    </div>
  );
}

export function DocSearchButton() {
  // The server cannot know the platform: Ctrl first, ⌘ on Apple devices after mounting.
  const [mod, setMod] = useState('Ctrl');
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useSearchHighlight();

  useEffect(() => {
    if (/Mac|iPhone|iPad|iPod/i.test(navigator.platform || navigator.userAgent)) setMod('⌘');
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.key === 'k' || e.key === 'K') && (e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey) {
        e.preventDefault();
        setOpen((o) => !o);
      } else if (e.key === '/' && !e.metaKey && !e.ctrlKey && !e.altKey && !isTyping(e.target)) {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const close = useCallback(() => {
    setOpen(false);
    button.current?.focus({ preventScroll: true });
  }, []);

  return (
    <>
      <button
        ref={button}
        type="button"
        className="search-button"
        aria-keyshortcuts="Control+K Meta+K"
        aria-label="Search"
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="search-button"
        onClick={() => setOpen(true)}
        onPointerEnter={preload}
        onFocus={preload}
      >
        <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
          <path d="M14.4 13l4.3 4.3-1.4 1.4-4.3-4.3a7.5 7.5 0 1 1 1.4-1.4zM8.5 14.5a6 6 0 1 0 0-12 6 6 0 0 0 0 12z" fill="currentColor" />
        </svg>
        <span className="search-button__label">Search</span>
        <span className="search-button__keys" aria-hidden="true">
          <kbd>{mod}</kbd>
          <kbd>K</kbd>
        </span>
      </button>
      {open ? <ModalSlot onClose={close} /> : null}
    </>
  );
}
