/**
 * Marks a search's terms in the article the reader landed on (`?_highlight=term+term`): each matching
 * word is wrapped in `<mark data-search-highlight>`, and the first mark of the target section is
 * scrolled into view. The article may still be on its way (a slow page load): the highlighter looks
 * for it on each animation frame and gives up after 5000 ms.
 */
import { matchRanges, termSet } from '@cairn/docs';

export const HIGHLIGHT_TIMEOUT_MS = 5000;
export const ARTICLE_SELECTOR = 'article.markdown';
const MARK_ATTR = 'data-search-highlight';
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEXTAREA', 'svg', 'MARK']);

/** Terms carried by a URL's search string. */
export function highlightTerms(search: string): string[] {
  const raw = new URLSearchParams(search).get('_highlight');
  if (!raw) return [];
  return [...new Set(raw.split(/\s+/).filter(Boolean))].slice(0, 32);
}

/** Removes the marks of an earlier highlight. */
export function clearHighlights(root: ParentNode): void {
  for (const mark of [...root.querySelectorAll(`mark[${MARK_ATTR}]`)]) {
    const parent = mark.parentNode;
    if (!parent) continue;
    parent.replaceChild(document.createTextNode(mark.textContent ?? ''), mark);
    parent.normalize();
  }
}

/** Wraps the matching words under `root`; returns the marks in document order. */
export function markTerms(root: Element, terms: readonly string[]): HTMLElement[] {
  const set = termSet(terms);
  if (set.size === 0) return [];
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      for (let el = node.parentElement; el && el !== root; el = el.parentElement) {
        if (SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true') return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
  const marks: HTMLElement[] = [];
  for (const text of texts) {
    const value = text.data;
    const ranges = matchRanges(value, set);
    if (ranges.length === 0) continue;
    const frag = doc.createDocumentFragment();
    let at = 0;
    for (const [start, end] of ranges) {
      if (start > at) frag.append(value.slice(at, start));
      const mark = doc.createElement('mark');
      mark.setAttribute(MARK_ATTR, '');
      mark.textContent = value.slice(start, end);
      frag.append(mark);
      marks.push(mark);
      at = end;
    }
    if (at < value.length) frag.append(value.slice(at));
    text.parentNode!.replaceChild(frag, text);
  }
  return marks;
}

/** The first mark at or after the section heading `hash` names (else the first mark). */
export function firstMarkOfSection(marks: HTMLElement[], hash: string): HTMLElement | undefined {
  const id = decodeURIComponent(hash.replace(/^#/, ''));
  const heading = id ? document.getElementById(id) : null;
  if (!heading) return marks[0];
  return marks.find((m) => heading.contains(m) || heading.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING) ?? marks[0];
}

/**
 * Highlights `terms` in the article once it is there. Returns a cancel function. `onDone` receives
 * the marks (an empty list when the article never came within the timeout).
 */
export function highlightWhenReady(
  terms: readonly string[],
  hash: string,
  onDone: (marks: HTMLElement[]) => void = () => {},
  timeoutMs = HIGHLIGHT_TIMEOUT_MS,
): () => void {
  const started = performance.now();
  let frame = 0;
  let cancelled = false;
  const attempt = () => {
    if (cancelled) return;
    const article = document.querySelector(ARTICLE_SELECTOR);
    if (!article) {
      if (performance.now() - started >= timeoutMs) {
        onDone([]);
        return;
      }
      frame = requestAnimationFrame(attempt);
      return;
    }
    clearHighlights(article);
    const marks = markTerms(article, terms);
    const target = firstMarkOfSection(marks, hash);
    // `nearest`: when the section heading is already in view (the router scrolled to the anchor), stay.
    target?.scrollIntoView({ block: 'nearest' });
    onDone(marks);
  };
  attempt();
  return () => {
    cancelled = true;
    cancelAnimationFrame(frame);
  };
}
