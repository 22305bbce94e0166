/**
 * Which words of a text a search matched, for marking them (results snippets, the target article).
 * A word is marked when it becomes one of the matched index terms under the index's own term
 * processing (so "Emails" is marked for the term "email", "e-mail" for "email").
 */
import { processTerm } from './search-options.ts';

const WORD = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;

/** The highlight terms carried in a URL (`?_highlight=a+b`): processed, without duplicates. */
export const HIGHLIGHT_PARAM = '_highlight';

/** A set of matched index terms (as a hit's `terms` hold them: already processed, so not processed again). */
export function termSet(terms: Iterable<string>): Set<string> {
  const set = new Set<string>();
  for (const t of terms) {
    const p = t.trim().toLowerCase();
    if (p) set.add(p);
  }
  return set;
}

function matches(word: string, terms: ReadonlySet<string>): boolean {
  const whole = processTerm(word.replace(/-/g, ''));
  if (whole && terms.has(whole)) return true;
  if (!word.includes('-')) return false;
  return word.split('-').some((part) => {
    const p = processTerm(part);
    return p !== null && terms.has(p);
  });
}

/** [start, end) ranges of the words of `text` matching `terms`, in order. */
export function matchRanges(text: string, terms: ReadonlySet<string>): [number, number][] {
  if (terms.size === 0) return [];
  const ranges: [number, number][] = [];
  for (const m of text.matchAll(WORD)) {
    if (matches(m[0], terms)) ranges.push([m.index, m.index + m[0].length]);
  }
  return ranges;
}

export type Piece = { text: string; mark: boolean };

/** `text` cut into plain and marked pieces. */
export function markPieces(text: string, terms: ReadonlySet<string>): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  for (const [start, end] of matchRanges(text, terms)) {
    if (start > at) pieces.push({ text: text.slice(at, start), mark: false });
    pieces.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), mark: false });
  return pieces;
}
