/** Draws diagrams the build left as `<pre class="mermaid">`, with the lazy-loading states. */
import { useEffect, type RefObject } from 'react';
import { useLazy } from '../lazy/lazy';

// Browser only: the server never draws diagrams, so mermaid stays out of the worker bundle.
const loadRenderer = () => (import.meta.env.SSR ? Promise.reject(new Error('not in the browser')) : import('./render'));

export default function MermaidFallback({ root, html }: { root: RefObject<HTMLElement | null>; html: string }) {
  const { state, retry } = useLazy(loadRenderer);
  useEffect(() => {
    if (state.status !== 'ready' || !root.current) return;
    state.value.drawDiagrams(root.current).catch((err: unknown) => console.error('Cairn docs: a diagram could not be drawn', err));
  }, [state, root, html]);
  if (state.status === 'loading') {
    return state.pastDelay ? (
      <p className="lazy-status" role="status">
        Loading diagrams…
      </p>
    ) : null;
  }
  if (state.status === 'error') {
    return (
      <div className="lazy-status lazy-status--error" role="alert">
        <p>The diagrams of this page could not be loaded: {state.error.message}</p>
        <button type="button" className="button" onClick={retry}>
          Retry
        </button>
      </div>
    );
  }
  return null;
}
