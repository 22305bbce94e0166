import { HIGHLIGHT_PARAM, type DocsSearchHit } from '@cairn/docs';

/** Where a hit leads: its section route (`/path#anchor`) with the matched terms to highlight there. */
export function hitHref(hit: Pick<DocsSearchHit, 'sectionRoute' | 'terms'>): string {
  const hashAt = hit.sectionRoute.indexOf('#');
  const path = hashAt === -1 ? hit.sectionRoute : hit.sectionRoute.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : hit.sectionRoute.slice(hashAt);
  const params = new URLSearchParams({ [HIGHLIGHT_PARAM]: [...new Set(hit.terms)].join(' ') });
  return `${path}?${params.toString()}${hash}`;
}
