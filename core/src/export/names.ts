/**
 * Names of what a download contains: worksheet names (Excel's rules) and file names (safe on
 * Windows, macOS and Linux), each unique within its download, compared case-insensitively.
 */

/** Cuts a string to at most `max` UTF-16 units without splitting a surrogate pair. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  let out = s.slice(0, max);
  const last = out.charCodeAt(out.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1);
  return out;
}

/** Adds " (2)", " (3)", … within `max` characters until the name is not taken yet. */
function uniqueIn(taken: Set<string>, base: string, max: number, suffix = ''): string {
  let name = cut(base, max - suffix.length) + suffix;
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const tag = ` (${n})`;
    name = cut(base, max - tag.length - suffix.length).trimEnd() + tag + suffix;
  }
  taken.add(name.toLowerCase());
  return name;
}

export const MAX_SHEET_NAME = 31;

/**
 * Worksheet names: at most 31 characters, none of `[ ] : * ? / \`, no control characters, not
 * starting or ending with an apostrophe, not Excel's reserved "History", never empty, unique.
 */
export function sheetNamer(): (name: string) => string {
  const taken = new Set<string>();
  let n = 0;
  return (raw: string) => {
    n++;
    let s = raw
      .replace(/[[\]:*?/\\\u0000-\u001f\u007f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    s = s.replace(/^'+|'+$/g, '').trim();
    if (s.toLowerCase() === 'history') s = `${s} (report)`;
    if (!s) s = `Sheet ${n}`;
    return uniqueIn(taken, s, MAX_SHEET_NAME);
  };
}

const RESERVED_FILE = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * File names inside a zip or in Content-Disposition: no path separators, none of `< > : " | ? *`,
 * no control characters, no leading dots or trailing dots and spaces, not a Windows device name,
 * at most 100 characters before the extension, unique.
 */
export function fileNamer(extension: string): (name: string) => string {
  const taken = new Set<string>();
  return (raw: string) => {
    let s = raw
      .replace(/[<>:"/\\|?*\u0000-\u001f\u007f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    s = s.replace(/^\.+/, '').replace(/[. ]+$/, '');
    if (!s || RESERVED_FILE.test(s)) s = s ? `${s}_` : 'data';
    return uniqueIn(taken, s, 100 + extension.length, extension);
  };
}

/** `attachment` with an ASCII fallback name and the UTF-8 name (RFC 6266 / RFC 5987). */
export function contentDisposition(fileName: string): string {
  const ascii =
    fileName
      .normalize('NFKD')
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/["\\%]/g, '_')
      .trim() || 'download';
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
