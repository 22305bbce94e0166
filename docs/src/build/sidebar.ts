/**
 * The docs sidebar: one group per top-level folder of the pages directory, pages at the root
 * first under "Introduction". A folder may hold `_category_.json` ({"label": "...", "position": n});
 * otherwise its label is the folder name in words ("sql-alerts" → "SQL alerts").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SidebarGroup } from '../types.ts';

export const ROOT_GROUP_LABEL = 'Introduction';
const ACRONYMS: Record<string, string> = { sql: 'SQL', api: 'API', sso: 'SSO', kpi: 'KPI', csv: 'CSV', pdf: 'PDF' };

export interface CategoryInfo {
  label: string;
  position: number;
}

export function defaultLabel(folder: string): string {
  const words = folder.split(/[-_\s]+/).filter(Boolean).map((w) => ACRONYMS[w.toLowerCase()] ?? w.toLowerCase());
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Reads `<pagesDir>/<folder>/_category_.json` when present; throws a clear error if it is malformed. */
export function readCategory(pagesDir: string, folder: string): CategoryInfo {
  const file = join(pagesDir, folder, '_category_.json');
  const info: CategoryInfo = { label: defaultLabel(folder), position: Number.POSITIVE_INFINITY };
  if (!existsSync(file)) return info;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${folder}/_category_.json is not valid JSON: ${(err as Error).message}`);
  }
  const d = data as { label?: unknown; position?: unknown };
  if (d.label !== undefined && (typeof d.label !== 'string' || !d.label.trim())) {
    throw new Error(`${folder}/_category_.json: "label" must be a non-empty string`);
  }
  if (d.position !== undefined && typeof d.position !== 'number') {
    throw new Error(`${folder}/_category_.json: "position" must be a number`);
  }
  if (typeof d.label === 'string') info.label = d.label.trim();
  if (typeof d.position === 'number') info.position = d.position;
  return info;
}

export interface SidebarPage {
  route: string;
  title: string;
  /** Top-level folder, or null for a page at the root of the pages directory. */
  folder: string | null;
  position: number | undefined;
}

export function buildSidebar(pages: SidebarPage[], categories: Map<string, CategoryInfo>): SidebarGroup[] {
  const groups = new Map<string | null, SidebarPage[]>();
  for (const p of pages) {
    const list = groups.get(p.folder) ?? [];
    list.push(p);
    groups.set(p.folder, list);
  }
  const byPosition = (a: SidebarPage, b: SidebarPage) =>
    (a.position ?? Number.POSITIVE_INFINITY) - (b.position ?? Number.POSITIVE_INFINITY) ||
    // A folder's index page (route = folder route) leads its group.
    a.route.split('/').length - b.route.split('/').length ||
    a.title.localeCompare(b.title);
  const folders = [...groups.keys()].filter((f): f is string => f !== null);
  folders.sort((a, b) => {
    const ca = categories.get(a)!;
    const cb = categories.get(b)!;
    // Infinity - Infinity is NaN (falsy): unpositioned folders fall through to the label.
    return ca.position - cb.position || ca.label.localeCompare(cb.label);
  });
  const result: SidebarGroup[] = [];
  const root = groups.get(null);
  if (root) result.push({ label: ROOT_GROUP_LABEL, items: root.sort(byPosition).map(({ route, title }) => ({ route, title })) });
  for (const f of folders) {
    result.push({ label: categories.get(f)!.label, items: groups.get(f)!.sort(byPosition).map(({ route, title }) => ({ route, title })) });
  }
  return result;
}
