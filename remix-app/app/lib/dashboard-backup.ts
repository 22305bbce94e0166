/** Dashboard backups in the app: the download's file name and a first check of a file picked for restore. Pure. */

const BACKUP_FORMAT = 'cairn.dashboard-backup';

/** A safe file name from the dashboard name: letters, digits, dot, dash and underscore only, never empty. */
export function backupFileName(name: string | null | undefined, date: Date = new Date()): string {
  const base = (name ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80)
    .replace(/[-.]+$/, '');
  return `${base || 'dashboard'}-backup-${date.toISOString().slice(0, 10)}.json`;
}

/** The parsed backup, or why the text is not one (the API checks everything else). */
export function readBackupText(text: string): { ok: true; backup: Record<string, unknown> } | { ok: false; message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, message: 'The file is not JSON. Choose a file saved with “Download backup”.' };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, message: 'The file does not hold a dashboard backup.' };
  const format = (parsed as { format?: unknown }).format;
  if (format !== BACKUP_FORMAT)
    return {
      ok: false,
      message: `The file is not a dashboard backup (its format is ${typeof format === 'string' ? `“${format}”` : 'missing'}, not “${BACKUP_FORMAT}”).`,
    };
  return { ok: true, backup: parsed as Record<string, unknown> };
}
