import { ApiError } from '@cairn/core';
import { MAX_SNIPPET_DEPTH } from './schema.ts';

export interface SnippetNode {
  id: string;
  name: string;
  /** Ids of the snippets it uses (recorded uses and the `[name]` references of its text). */
  uses: string[];
}

/**
 * Refuses a snippet whose uses would form a cycle (naming it: a → b → a) or a chain deeper than
 * MAX_SNIPPET_DEPTH levels through it. `nodes` is the organization's graph with the snippet's new
 * state in place.
 */
export function checkSnippetGraph(nodes: Map<string, SnippetNode>, selfId: string) {
  const label = (id: string) => nodes.get(id)?.name ?? id;
  // Cycle through this snippet: depth-first from it until it comes back.
  const path: string[] = [selfId];
  const seen = new Set<string>();
  const walk = (id: string): string[] | null => {
    for (const next of nodes.get(id)?.uses ?? []) {
      if (next === selfId) return [...path, selfId];
      if (seen.has(next)) continue;
      seen.add(next);
      path.push(next);
      const found = walk(next);
      if (found) return found;
      path.pop();
    }
    return null;
  };
  const cycle = walk(selfId);
  if (cycle) {
    throw new ApiError('invalid_relationship', `Snippets would use each other in a cycle: ${cycle.map(label).join(' → ')}.`, {
      source: { pointer: '/data/relationships/sql_snippets' },
    });
  }
  // Depth: the longest chain of snippets above this one plus the longest below it.
  const below = longest(nodes, (id) => nodes.get(id)?.uses ?? []);
  const parents = new Map<string, string[]>();
  for (const n of nodes.values()) for (const u of n.uses) parents.set(u, [...(parents.get(u) ?? []), n.id]);
  const above = longest(nodes, (id) => parents.get(id) ?? []);
  const depth = below(selfId) + above(selfId) - 1;
  if (depth > MAX_SNIPPET_DEPTH) {
    throw new ApiError(
      'invalid_relationship',
      `Snippets may nest at most ${MAX_SNIPPET_DEPTH} levels deep; through "${label(selfId)}" the chain would be ${depth} levels.`,
      {
        source: { pointer: '/data/relationships/sql_snippets' },
      },
    );
  }
}

/** Length in nodes of the longest path from a node along `next` (cycles elsewhere are cut, not followed). */
function longest(nodes: Map<string, SnippetNode>, next: (id: string) => string[]) {
  const memo = new Map<string, number>();
  const onPath = new Set<string>();
  const len = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    onPath.add(id);
    let best = 0;
    for (const n of next(id)) if (!onPath.has(n) && nodes.has(n)) best = Math.max(best, len(n));
    onPath.delete(id);
    memo.set(id, best + 1);
    return best + 1;
  };
  return len;
}
