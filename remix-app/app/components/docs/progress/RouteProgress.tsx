import { useEffect, useRef } from 'react';
import { useNavigation } from 'react-router';
import { createProgress, PROGRESS_SETTINGS } from './progress';

/** The bar at the top of the page while a navigation takes longer than 200 ms. */
export function RouteProgress() {
  const navigation = useNavigation();
  const bar = useRef<HTMLDivElement>(null);
  const status = useRef<HTMLSpanElement>(null);
  const progress = useRef<ReturnType<typeof createProgress> | null>(null);
  useEffect(() => {
    const p = createProgress(({ value, visible }) => {
      const el = bar.current;
      if (!el) return;
      el.style.opacity = visible ? '1' : '0';
      el.style.transform = `translate3d(${(value - 1) * 100}%,0,0)`;
      el.style.transition = `transform ${PROGRESS_SETTINGS.speed}ms ease, opacity ${PROGRESS_SETTINGS.speed}ms linear`;
      el.dataset.value = value.toFixed(3);
      // Screen readers hear what the bar shows; the page being replaced is marked busy.
      const loading = visible && value < 1;
      if (status.current) status.current.textContent = loading ? 'Loading page…' : '';
      document.getElementById('docs-main')?.setAttribute('aria-busy', String(loading));
    });
    progress.current = p;
    return () => p.dispose();
  }, []);
  const busy = navigation.state !== 'idle';
  useEffect(() => {
    if (busy) progress.current?.start();
    else progress.current?.done();
  }, [busy]);
  return (
    <>
      <div className="route-progress" aria-hidden="true">
        <div ref={bar} className="route-progress__bar" data-testid="route-progress" />
      </div>
      <span ref={status} role="status" className="visually-hidden" />
    </>
  );
}
