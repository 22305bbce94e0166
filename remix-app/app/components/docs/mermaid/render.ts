/**
 * In-browser diagram drawing, loaded only on a page whose diagrams the build could not draw (see
 * docs/src/build/mermaid.ts): mermaid is a large library, so it stays out of every other page.
 */
import mermaid from 'mermaid';

let ready = false;

/** Draws every `pre.mermaid` under `root` into an inline SVG figure, the way the build does. */
export async function drawDiagrams(root: HTMLElement): Promise<void> {
  if (!ready) {
    mermaid.initialize({
      startOnLoad: false,
      theme: 'neutral',
      securityLevel: 'strict',
      fontFamily: 'arial, "Liberation Sans", helvetica, sans-serif',
      htmlLabels: false,
      flowchart: { htmlLabels: false },
    });
    ready = true;
  }
  const blocks = [...root.querySelectorAll<HTMLPreElement>('pre.mermaid')];
  let n = 0;
  for (const pre of blocks) {
    const source = pre.textContent ?? '';
    const { svg } = await mermaid.render(`mermaid-live-${Date.now().toString(36)}-${n++}`, source);
    const figure = document.createElement('figure');
    figure.className = 'mermaid-diagram';
    figure.innerHTML = svg;
    const el = figure.querySelector('svg');
    el?.setAttribute('role', 'img');
    el?.setAttribute('aria-label', 'Diagram');
    pre.replaceWith(figure);
  }
}
