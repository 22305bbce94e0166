/**
 * Every TypeScript example of the docs that imports `@cairn/client` is compiled against the package:
 * an example that no longer fits the generated types (a renamed member, a body member made required)
 * fails here. The examples are type-checked, not run (they call a server of example.com).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = join(ROOT, 'docs', 'pages');

async function mdxFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await mdxFiles(p)));
    else if (e.name.endsWith('.mdx')) out.push(p);
  }
  return out;
}

interface Example {
  page: string;
  index: number;
  code: string;
}

/** The ```ts blocks of the docs that import @cairn/client. */
export async function clientExamples(): Promise<Example[]> {
  const examples: Example[] = [];
  for (const file of await mdxFiles(PAGES)) {
    const text = await readFile(file, 'utf8');
    let index = 0;
    for (const m of text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)) {
      if (m[1]!.includes("from '@cairn/client'")) examples.push({ page: relative(PAGES, file), index: index++, code: m[1]! });
    }
  }
  return examples;
}

/** tsc's findings for the examples, each compiled as its own module inside the client workspace. */
function typecheck(files: string[]): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    noEmit: true,
  };
  const program = ts.createProgram(files, options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.includes(d.file.fileName))
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return `${relative(ROOT, d.file!.fileName)}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

describe('the docs examples of @cairn/client', () => {
  it('compile against the generated types', async () => {
    const examples = await clientExamples();
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const dir = await mkdtemp(join(ROOT, 'client', 'test', '.examples-'));
    try {
      const files: string[] = [];
      for (const ex of examples) {
        const file = join(dir, `${ex.page.replace(/[^a-z0-9]+/gi, '_')}_${ex.index}.ts`);
        // Top-level await needs a module: every example imports, so it is one.
        await writeFile(file, ex.code);
        files.push(file);
      }
      expect(typecheck(files)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('would catch a body the types refuse', async () => {
    const dir = await mkdtemp(join(ROOT, 'client', 'test', '.examples-'));
    try {
      const file = join(dir, 'wrong.ts');
      await writeFile(
        file,
        [
          "import { createApiClient } from '@cairn/client';",
          "const api = createApiClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });",
          "await api.POST('/dashboards/{id}/status', { params: { path: { id: 'dsh_1' } }, body: { refresh_data: 'yes' } });",
          "await api.POST('/dashboards/{id}/data', { params: { path: { id: 'dsh_1' } }, body: { csv_column_separator: 'pipe' } });",
        ].join('\n'),
      );
      const found = typecheck([file]);
      expect(found).toHaveLength(2);
      expect(found.join('\n')).toMatch(/refresh_data|boolean/);
      expect(found.join('\n')).toMatch(/pipe/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
