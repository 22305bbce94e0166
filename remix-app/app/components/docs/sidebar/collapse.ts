/** Height animation of collapsible sidebar categories. */
import { useLayoutEffect, useRef } from 'react';

/**
 * Milliseconds to open or close `height` pixels of content: long lists take a little longer than
 * short ones, growing with the square root so a 40-item list is not ten times slower than a 4-item
 * one. Bounded to 150–450 ms; 1 ms when the reader asked for reduced motion.
 */
export function collapseDuration(height: number, reducedMotion = false): number {
  if (reducedMotion) return 1;
  return Math.round(Math.min(450, Math.max(150, 90 + 14 * Math.sqrt(Math.max(0, height)))));
}

const COLLAPSE_EASING = 'ease-in-out';

function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/**
 * Animates the element's height whenever `collapsed` changes (not on first render: the server
 * already drew the right state). Collapsed content is `visibility: hidden` so its links leave the
 * tab order.
 */
export function useCollapsible(collapsed: boolean) {
  const ref = useRef<HTMLUListElement>(null);
  const first = useRef(true);
  // Before paint: the class for the new state is already applied, the inline height holds the old one.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (first.current) {
      first.current = false;
      return;
    }
    const full = el.scrollHeight;
    const duration = collapseDuration(full, prefersReducedMotion());
    el.style.transition = 'none';
    el.style.visibility = 'visible';
    el.style.overflow = 'hidden';
    el.style.height = collapsed ? `${full}px` : '0px';
    void el.offsetHeight; // apply the start height before transitioning
    el.style.transition = `height ${duration}ms ${COLLAPSE_EASING}`;
    el.style.height = collapsed ? '0px' : `${full}px`;
    const done = () => {
      el.style.transition = '';
      el.style.height = collapsed ? '0px' : '';
      el.style.overflow = collapsed ? 'hidden' : '';
      el.style.visibility = collapsed ? 'hidden' : '';
    };
    const timer = window.setTimeout(done, duration + 20);
    return () => window.clearTimeout(timer);
  }, [collapsed]);
  return ref;
}
