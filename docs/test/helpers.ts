import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temp folder with `pages/` filled from `files` (path → content) and an `out/` path to build into. */
export async function fixture(files: Record<string, string>) {
  const root = await mkdtemp(join(tmpdir(), 'cairn-docs-test-'));
  const pagesDir = join(root, 'pages');
  for (const [path, content] of Object.entries(files)) {
    const file = join(pagesDir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { root, pagesDir, outDir: join(root, 'out'), cleanup: () => rm(root, { recursive: true, force: true }) };
}

export const page = (title: string, body: string, extra = '') => `---\ntitle: ${title}\n${extra}---\n\n${body}\n`;
