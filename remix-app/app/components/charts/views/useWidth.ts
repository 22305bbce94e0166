import { useLayoutEffect, useRef, useState, type RefObject } from 'react';

/**
 * The measured width and height of a container (for tick density and word-cloud layout). Measured
 * once right when the container is in the DOM (a layout effect: under Preact a passive effect would
 * only run after the next frame, and a ResizeObserver reports a frame later still, so views that wait
 * for a size would be drawn frames after their data), then kept current by a ResizeObserver.
 */
export function useSize<T extends HTMLElement = HTMLDivElement>(): [RefObject<T | null>, { width: number; height: number }] {
  const ref = useRef<T | null>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = (width: number, height: number) => {
      const w = Math.round(width),
        h = Math.round(height);
      setSize((s) => (w === s.width && h === s.height ? s : { width: w, height: h }));
    };
    const style = getComputedStyle(el);
    update(
      el.clientWidth - parseFloat(style.paddingLeft || '0') - parseFloat(style.paddingRight || '0'),
      el.clientHeight - parseFloat(style.paddingTop || '0') - parseFloat(style.paddingBottom || '0'),
    );
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => {
      const r = entries[0]?.contentRect;
      if (r) update(r.width, r.height);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, size];
}
