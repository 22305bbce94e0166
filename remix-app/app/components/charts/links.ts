/**
 * Table cells that hold a web address become links. Only absolute http(s) URLs qualify: anything else
 * (javascript:, data:, mailto:, relative paths, text around a URL) stays plain text.
 */
const ABSOLUTE_WEB_URL = /^https?:\/\/[^\s]+$/i;

/** The address to link a cell value to, or null when the value is not exactly one absolute http(s) URL. */
export function cellHref(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!ABSOLUTE_WEB_URL.test(text) || text.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  return url.href;
}
