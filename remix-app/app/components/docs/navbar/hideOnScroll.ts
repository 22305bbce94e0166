/**
 * The navbar hides while the reader scrolls down past its height and comes back when they scroll up
 * or reach the top or the bottom of the page. A jump to a #anchor hides it (the heading it scrolled
 * to would otherwise sit under it) and the scroll that jump causes is ignored.
 */
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';

export interface ScrollFrame {
  previousY: number;
  y: number;
  navbarHeight: number;
  viewportHeight: number;
  documentHeight: number;
}

/** true: show, false: hide. */
export function navbarVisible({ previousY, y, navbarHeight, viewportHeight, documentHeight }: ScrollFrame): boolean {
  if (y < navbarHeight) return true;
  if (y + viewportHeight >= documentHeight - navbarHeight) return true; // near the bottom
  return y < previousY;
}

/** The element's visibility state; `enabled` false keeps it always visible. */
export function useHideableNavbar(enabled: boolean, navbar: React.RefObject<HTMLElement | null>): boolean {
  const [visible, setVisible] = useState(true);
  const lastY = useRef(0);
  const ignoreNextScroll = useRef(false);
  const location = useLocation();
  const lastLocation = useRef(location);

  useEffect(() => {
    if (!enabled) return;
    lastY.current = window.scrollY;
    let frame = 0;
    const onScroll = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        const y = window.scrollY;
        const previousY = lastY.current;
        lastY.current = y;
        if (ignoreNextScroll.current) {
          ignoreNextScroll.current = false;
          return;
        }
        setVisible(
          navbarVisible({
            previousY,
            y,
            navbarHeight: navbar.current?.offsetHeight ?? 60,
            viewportHeight: window.innerHeight,
            documentHeight: document.documentElement.scrollHeight,
          }),
        );
      });
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      window.removeEventListener('scroll', onScroll);
      cancelAnimationFrame(frame);
    };
  }, [enabled, navbar]);

  useEffect(() => {
    const before = lastLocation.current;
    lastLocation.current = location;
    if (!enabled || before === location) return;
    if (location.hash && location.pathname === before.pathname && location.hash !== before.hash) {
      ignoreNextScroll.current = true;
      setVisible(false);
    } else if (location.pathname !== before.pathname) {
      setVisible(true);
    }
  }, [enabled, location]);

  return visible;
}
