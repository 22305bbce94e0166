import { useLayoutEffect, type RefObject } from 'react';

/**
 * While `open`, a press outside `ref`'s element or the Escape key calls `dismiss` (menus, popovers,
 * dropdowns). A layout effect: the listeners are there as soon as the panel is, also under Preact,
 * which runs passive effects only after the next frame (ARCHITECTURE.md D24).
 */
export function useDismiss(open: boolean, ref: RefObject<HTMLElement | null>, dismiss: () => void, press: 'mousedown' | 'pointerdown' = 'mousedown'): void {
  useLayoutEffect(() => {
    if (!open) return;
    const onPress = (e: Event) => {
      if (ref.current && !ref.current.contains(e.target as Node)) dismiss();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') dismiss();
    };
    document.addEventListener(press, onPress);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener(press, onPress);
      document.removeEventListener('keydown', onKey);
    };
    // `dismiss` is a fresh closure on each render; the listeners only need the latest `open`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, press]);
}
