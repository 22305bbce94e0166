/**
 * One way of writing a range value across the docs: every page that explains range values in API
 * parameters says it in the same words (the forms core/src/sql/ranges.ts accepts; the OpenAPI
 * description of selected_values names the same two forms, see worker-api/test/openapi.test.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const PAGES = join(import.meta.dirname, '..', 'pages');
const RULE =
  'A range is one value `"start~end"`: both ends are included, and either side may be left empty for an open range. Two values `[start, end]` are accepted too, with `null` or `""` for an open side.';
const PAGES_WITH_RANGES = [
  'api/v2024-06-01.mdx',
  'dashboards/overview.mdx',
  'filters/overview.mdx',
  'filters/date-range.mdx',
  'filters/date-time-range.mdx',
  'filters/time-range.mdx',
];
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('range values in the docs', () => {
  it.each(PAGES_WITH_RANGES)('%s states the one rule', async (page) => {
    expect(flat(await readFile(join(PAGES, page), 'utf8'))).toContain(RULE);
  });

  it('API examples of range filters use the one-value form', async () => {
    for (const page of PAGES_WITH_RANGES) {
      const text = await readFile(join(PAGES, page), 'utf8');
      // Two dates as two separate values is accepted, but the docs show "start~end".
      expect(text, page).not.toMatch(/"selected_values":\s*\["\d{4}-\d{2}-\d{2}",\s*"\d{4}-\d{2}-\d{2}"\]/);
    }
  });
});
