/** The docs pages come pre-rendered from @cairn/docs; the app frames them. */
import type { AppLoadContext } from 'react-router';
import { docDrafts, docSidebar, loadDocPage } from '@cairn/docs/runtime';
export { docDrafts, docSidebar, loadDocPage };

/**
 * Test hooks (a page that crashes on demand) exist only where the worker runs with
 * DOCS_TEST_HOOKS=1 (the e2e stack); a deployment never sets it.
 */
export function docsTestHooks(context: AppLoadContext): boolean {
  const env = (context as { cloudflare?: { env?: { DOCS_TEST_HOOKS?: string } } }).cloudflare?.env;
  return env?.DOCS_TEST_HOOKS === '1';
}
