import { describe, expect, it } from 'vitest';
import { backupFileName, readBackupText } from './dashboard-backup';

describe('backup file names', () => {
  const day = new Date('2026-03-04T10:00:00Z');
  it('keeps letters and digits, folds accents and replaces the rest', () => {
    expect(backupFileName('Sales – Q1 / Europe', day)).toBe('Sales-Q1-Europe-backup-2026-03-04.json');
    expect(backupFileName('Café "Über" <script>', day)).toBe('Cafe-Uber-script-backup-2026-03-04.json');
    expect(backupFileName('../../etc/passwd', day)).toBe('etc-passwd-backup-2026-03-04.json');
  });
  it('never answers an empty or overlong name', () => {
    expect(backupFileName('', day)).toBe('dashboard-backup-2026-03-04.json');
    expect(backupFileName('日本語', day)).toBe('dashboard-backup-2026-03-04.json');
    expect(backupFileName(null, day)).toBe('dashboard-backup-2026-03-04.json');
    expect(backupFileName('x'.repeat(300), day).length).toBeLessThanOrEqual(80 + '-backup-2026-03-04.json'.length);
  });
});

describe('reading a backup file', () => {
  it('accepts a dashboard backup', () => {
    const r = readBackupText(JSON.stringify({ format: 'cairn.dashboard-backup', version: 1 }));
    expect(r.ok).toBe(true);
  });
  it('explains files that are not backups', () => {
    expect(readBackupText('not json')).toMatchObject({ ok: false, message: expect.stringContaining('not JSON') });
    expect(readBackupText('[1]')).toMatchObject({ ok: false });
    expect(readBackupText('{"format":"other"}')).toMatchObject({ ok: false, message: expect.stringContaining('“other”') });
  });
});
