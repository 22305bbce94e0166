/** The committed types are what the servers' documents generate today: a stale file fails here. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED, generatedSources } from '../scripts/documents.ts';

describe('src/generated', () => {
  it('matches the OpenAPI documents of the API and data servers (else run `npm run -w client generate`)', async () => {
    const fresh = await generatedSources();
    for (const [name, url] of Object.entries(GENERATED)) {
      const committed = await readFile(url, 'utf8');
      expect(committed === fresh[name as keyof typeof GENERATED], `client/src/generated/${name}.ts is stale: run npm run -w client generate`).toBe(true);
    }
    // The types carry what the documents say: a defaulted request member is optional, a response's is not.
    expect(fresh.api).toMatch(/refresh_data\?: boolean;/);
    expect(fresh.data).toContain('CellValues: {');
    expect(fresh.operations).toContain('"POST /dashboards"');
  }, 180_000);
});
