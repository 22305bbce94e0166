import { ApiError } from '@cairn/core';

/** Throws the problems as one error response (each problem keeps its pointer and meta), if there are any. */
export function throwAll(problems: ApiError[]): void {
  if (!problems.length) return;
  const flat = problems.flatMap((p) => [p, ...p.more]);
  const [first, ...more] = flat;
  throw new ApiError(first!.code, first!.message, {
    source: first!.source,
    meta: first!.meta,
    more: more.map((m) => new ApiError(m.code, m.message, { source: m.source, meta: m.meta })),
  });
}
