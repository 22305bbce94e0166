/** Which table-of-contents entry to highlight while the reader scrolls. */
import { useEffect, useState } from 'react';

/**
 * `tops`: each heading's distance from the top of the viewport, in page order. The active heading is
 * the last one scrolled past the line `offset` px below the top; before the first one is reached, the
 * first heading while it is on screen, else none.
 */
export function pickActiveHeading(tops: number[], offset: number, viewportHeight: number): number {
  let active = -1;
  for (let i = 0; i < tops.length; i++) {
    if (tops[i]! <= offset) active = i;
    else break;
  }
  if (active === -1 && tops.length > 0 && tops[0]! < viewportHeight) active = 0;
  return active;
}

/** Tracks the active heading id among `ids` (the page's h2/h3). */
export function useActiveHeading(ids: string[], offset = 96): string | null {
  const [active, setActive] = useState<string | null>(null);
  const key = ids.join(' ');
  useEffect(() => {
    if (ids.length === 0) return;
    let frame = 0;
    const update = () => {
      frame = 0;
      const tops = ids.map((id) => document.getElementById(id)?.getBoundingClientRect().top ?? Number.POSITIVE_INFINITY);
      const i = pickActiveHeading(tops, offset, window.innerHeight);
      setActive(i === -1 ? null : ids[i]!);
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    update();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule, { passive: true });
    return () => {
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      cancelAnimationFrame(frame);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `ids`
  }, [key, offset]);
  return active;
}
