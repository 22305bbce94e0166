/**
 * How the docs search index is built and queried: one place for the build (Node) and the browser.
 * The browser must load an index with these same options: `MiniSearch.loadJS(file.index, miniSearchOptions)`.
 *
 * Text becomes terms like this: split at spaces and punctuation (a hyphenated word also yields its
 * joined form, so "e-mail" is found by "email" and "drill-down" by "drilldown"), lower case, accents
 * dropped, common English words left out ("how do I …" questions keep only their content words),
 * and a light stem taken (plurals, "-ing", "-ed", a final "e": see `stem`).
 */
import type { Options, SearchOptions } from 'minisearch';
import type { SearchDocument } from './types.ts';

export const SEARCH_FIELDS = ['title', 'content', 'tags', 'sidebarParentCategories'] as const;

/** The spec caps the search input at 512 characters and the results list at 8 entries (per index and overall). */
export const MAX_QUERY_LENGTH = 512;
export const MAX_RESULTS = 8;

/** Boosts of spec 02 §2 "Search". */
export const FIELD_BOOSTS = { title: 5, content: 1, tags: 3, sidebarParentCategories: 2 } as const;

const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;
const HYPHENATED = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu;

export function tokenize(text: string): string[] {
  const tokens = text.split(SPACE_OR_PUNCTUATION).filter(Boolean);
  for (const match of text.matchAll(HYPHENATED)) tokens.push(match[0].replace(/-/g, ''));
  return tokens;
}

/** Words that carry no meaning for finding a page (also never indexed, which keeps the index small). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about after all also am an and any are as at be been before being both but by can could did do does doing done ' +
    'each either for from get gets getting got had has have having he her here hers him his how i if in into is it its ' +
    'just let me might more most much must my no nor not of off on once one only or other our ours out own please same ' +
    'she should so some such than that the their theirs them then there these they this those through to too under ' +
    'until up upon us very via want wants was way we were what when where whether which while who whom whose why will ' +
    'with within would you your yours'
  ).split(' '),
);

/** A plural to its singular ("queries" → "query", "boxes" → "box", "emails" → "email"). */
export function singular(term: string): string {
  if (term.length > 4 && term.endsWith('ies')) return `${term.slice(0, -3)}y`;
  if (term.length > 4 && /(?:ss|sh|ch|x)es$/.test(term)) return term.slice(0, -2);
  if (term.length > 3 && term.endsWith('s') && !/(?:ss|us|is|ics)$/.test(term)) return term.slice(0, -1);
  return term;
}

const VOWEL = /[aeiouy]/;

/**
 * A light stemmer, the same for the index and the query: singular, then "-ing"/"-ed" and a final
 * "e" dropped, so "rotate", "rotated" and "rotating" are one term ("rotat"), and so are "schedule",
 * "schedules" and "scheduled". What is left must keep a vowel and four letters ("string" and
 * "embed" stay whole).
 */
export function stem(term: string): string {
  let t = singular(term);
  const cut = (suffix: string, min: number) => {
    const rest = t.slice(0, -suffix.length);
    if (t.length <= min || !t.endsWith(suffix) || rest.length < 4 || !VOWEL.test(rest)) return false;
    t = t.slice(0, -suffix.length);
    // "embedding" → "embedd" → "embed"; "drilling" keeps its "ll".
    if (t.length > 2 && t.at(-1) === t.at(-2) && !/[aeiouylsz]/.test(t.at(-1)!)) t = t.slice(0, -1);
    return true;
  };
  if (!cut('ing', 5) && !t.endsWith('eed')) cut('ed', 4);
  if (t.length > 4 && t.endsWith('e')) t = t.slice(0, -1);
  return t;
}

export function processTerm(term: string): string | null {
  const t = term
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '');
  if (!t || STOP_WORDS.has(t)) return null;
  return stem(t);
}

/**
 * Every query term is matched exactly and as a trailing-wildcard prefix ("sched" finds "schedule"),
 * with the spec's field boosts. No fuzzy matching: exact and prefix matches only. A term of one or
 * two letters is a prefix only when it is the whole query: among other words it is a word still being
 * typed (the next keystroke widens it), and its hundreds of completions ("da": data, dashboard, date…)
 * would only slow every keystroke down.
 */
export const searchOptions: SearchOptions = {
  boost: { ...FIELD_BOOSTS },
  prefix: (term, _i, terms) => term.length > 2 || terms.length === 1,
  fuzzy: false,
  combineWith: 'AND',
};

/** Array fields (tags, categories) are indexed as their joined words. */
export function extractField(document: SearchDocument, fieldName: string): string {
  const value = (document as unknown as Record<string, unknown>)[fieldName];
  if (Array.isArray(value)) return value.join(' ');
  return value == null ? '' : String(value);
}

export const miniSearchOptions: Options<SearchDocument> = {
  idField: 'id',
  fields: [...SEARCH_FIELDS],
  // Results are looked up in the index file's `documents` list by id; nothing else is stored.
  storeFields: [],
  extractField,
  tokenize,
  processTerm,
  searchOptions,
};
