/** `npm run -w client generate`: writes src/generated/ from the servers' OpenAPI documents. */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { GENERATED, generatedSources } from './documents.ts';

const sources = await generatedSources();
for (const [name, url] of Object.entries(GENERATED)) {
  await writeFile(url, sources[name as keyof typeof GENERATED]);
  console.log(`wrote ${fileURLToPath(url)}`);
}
