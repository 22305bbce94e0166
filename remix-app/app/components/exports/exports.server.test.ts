import { describe, expect, it } from 'vitest';
import { exportFilePath, streamJobFile, streamProcess } from './exports.server';

describe('export files from the data server', () => {
  it('keeps only the /exports/{job} path and token of a file_url', () => {
    expect(exportFilePath('https://data.example.test/exports/exp_1?token=abc')).toBe('/exports/exp_1?token=abc');
    expect(exportFilePath('/exports/exp_1?token=a%2Bb')).toBe('/exports/exp_1?token=a%2Bb');
    expect(exportFilePath('https://data.example.test/data/x?token=abc')).toBeNull();
    expect(exportFilePath('https://data.example.test/exports/exp_1')).toBeNull();
    expect(exportFilePath(undefined)).toBeNull();
  });

  it('streams a job file through the DATA binding with its name, and words its errors', async () => {
    const seen: string[] = [];
    const ok = {
      fetch: async (input: Request | string) => {
        seen.push(String(input));
        return new Response('%PDF-1.7', { headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': 'attachment; filename="Sales.pdf"' } });
      },
    };
    const res = await streamJobFile(ok, 'http://127.0.0.1:1/exports/exp_9?token=t');
    expect(seen).toEqual(['https://cairn-data.internal/exports/exp_9?token=t']);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toBe('attachment; filename="Sales.pdf"');
    expect(await res.text()).toBe('%PDF-1.7');

    const gone = { fetch: async () => Response.json({ errors: [{ detail: 'No file for this export job.' }] }, { status: 404 }) };
    const missing = await streamJobFile(gone, '/exports/exp_9?token=t');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('No file for this export job.\n');
    expect((await streamJobFile(ok, 'nonsense')).status).toBe(502);
  });

  it('posts the process token and names the reports left out', async () => {
    let body = '';
    const data = {
      fetch: async (_input: Request | string, init?: RequestInit) => {
        body = String(init?.body);
        return new Response('PK', { headers: { 'Content-Type': 'application/zip' } });
      },
    };
    const res = await streamProcess(data, 'tok', ['Orders']);
    expect(JSON.parse(body)).toEqual({ data_access_token: 'tok' });
    expect(res.headers.get('Content-Type')).toBe('application/zip');
    expect(JSON.parse(decodeURIComponent(res.headers.get('X-Cairn-Skipped')!))).toEqual(['Orders']);
    const down = {
      fetch: async () => {
        throw new Error('down');
      },
    };
    expect((await streamProcess(down, 'tok', [])).status).toBe(503);
  });
});
