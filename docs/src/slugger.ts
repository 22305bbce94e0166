/**
 * Heading ids: lower case, letters and digits kept (any script), runs of spaces or hyphens become
 * one hyphen, everything else dropped. Repeats on the same page get `-1`, `-2`, … and a suffixed id
 * never collides with a heading that already uses it.
 */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/[\s-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function createSlugger(): (text: string) => string {
  const used = new Set<string>();
  const repeats = new Map<string, number>();
  return (text) => {
    const base = slugify(text) || 'section';
    let slug = base;
    let n = repeats.get(base) ?? 0;
    while (used.has(slug)) {
      n += 1;
      slug = `${base}-${n}`;
    }
    repeats.set(base, n);
    used.add(slug);
    return slug;
  };
}
