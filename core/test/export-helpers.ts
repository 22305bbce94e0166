/**
 * Helpers of the export tests: an independent zip reader (checks every header, the data
 * descriptors and the CRCs with Node's zlib), an RFC 4180 CSV parser, and Python's zipfile and XML
 * parser as a second opinion on archives and workbooks.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'vitest';

export const enc = new TextEncoder();
export const dec = new TextDecoder();

/** Chunks as the engine stores them, from row arrays. */
export const chunk = (rows: unknown[][]) => enc.encode(rows.map((r) => JSON.stringify(r)).join(','));

export interface ZipFile {
  name: string;
  method: number;
  flags: number;
  crc: number;
  data: Buffer;
}

/** Reads a zip from its end-of-central-directory record, checking each entry against its local header. */
export function readZip(bytes: Uint8Array): ZipFile[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const eocd = buf.length - 22;
  expect(buf.readUInt32LE(eocd), 'end of central directory').toBe(0x06054b50);
  const count = buf.readUInt16LE(eocd + 10);
  expect(buf.readUInt16LE(eocd + 8)).toBe(count);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  expect(cdOffset + cdSize, 'central directory ends at the EOCD').toBe(eocd);
  const files: ZipFile[] = [];
  let p = cdOffset;
  let expectedLocal = 0;
  for (let i = 0; i < count; i++) {
    expect(buf.readUInt32LE(p), `central header ${i}`).toBe(0x02014b50);
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const csize = buf.readUInt32LE(p + 20);
    const usize = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;
    // Entries follow each other with nothing in between.
    expect(local, `${name} offset`).toBe(expectedLocal);
    expect(buf.readUInt32LE(local), `${name} local header`).toBe(0x04034b50);
    expect(buf.readUInt16LE(local + 6)).toBe(flags);
    expect(buf.readUInt16LE(local + 8)).toBe(method);
    const lNameLen = buf.readUInt16LE(local + 26);
    const lExtra = buf.readUInt16LE(local + 28);
    expect(buf.subarray(local + 30, local + 30 + lNameLen).toString('utf8')).toBe(name);
    const start = local + 30 + lNameLen + lExtra;
    const raw = buf.subarray(start, start + csize);
    const data = method === 8 ? zlib.inflateRawSync(raw) : method === 0 ? Buffer.from(raw) : null;
    expect(data, `${name} method`).not.toBeNull();
    expect(data!.length, `${name} size`).toBe(usize);
    expect(zlib.crc32(data!), `${name} CRC`).toBe(crc);
    let next = start + csize;
    if (flags & 0x08) {
      expect(buf.readUInt32LE(next), `${name} data descriptor`).toBe(0x08074b50);
      expect(buf.readUInt32LE(next + 4)).toBe(crc);
      expect(buf.readUInt32LE(next + 8)).toBe(csize);
      expect(buf.readUInt32LE(next + 12)).toBe(usize);
      next += 16;
    }
    expectedLocal = next;
    files.push({ name, method, flags, crc, data: data! });
  }
  expect(expectedLocal, 'central directory follows the last entry').toBe(cdOffset);
  return files;
}

/** RFC 4180 parser: returns rows of fields, each field with whether it was quoted. */
export function parseCsv(text: string, sep: string): { value: string; quoted: boolean }[][] {
  const rows: { value: string; quoted: boolean }[][] = [];
  let row: { value: string; quoted: boolean }[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let value = '';
    let quoted = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= n) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
    } else {
      while (i < n && text[i] !== sep && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`bare quote in an unquoted field at ${i}`);
        value += text[i++];
      }
    }
    row.push({ value, quoted });
    if (text[i] === sep) {
      i++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      rows.push(row);
      row = [];
      continue;
    }
    if (i >= n) break;
    throw new Error(`unexpected character ${JSON.stringify(text[i])} at ${i}`);
  }
  if (row.length) rows.push(row);
  return rows;
}

/** Runs a Python script with the file's path as argv[1]; returns its JSON output. */
export function python(bytes: Uint8Array, script: string, suffix = '.zip'): any {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-export-'));
  try {
    const file = join(dir, `file${suffix}`);
    writeFileSync(file, bytes);
    const res = spawnSync('python3', ['-c', script, file], { encoding: 'utf8', env: process.env });
    if (res.status !== 0) throw new Error(`python3 failed: ${res.stderr}`);
    return JSON.parse(res.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const hasPython = spawnSync('python3', ['-c', 'import zipfile, xml.etree.ElementTree'], { encoding: 'utf8' }).status === 0;
export const hasOpenpyxl = hasPython && spawnSync('python3', ['-c', 'import openpyxl'], { encoding: 'utf8', env: process.env }).status === 0;

/** Python's zipfile: testzip (every CRC), names, and each .xml/.rels member parsed as XML. */
export const PY_ZIP_CHECK = `
import sys, json, zipfile, xml.etree.ElementTree as ET
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
parsed = []
for n in z.namelist():
    if n.endswith('.xml') or n.endswith('.rels'):
        ET.fromstring(z.read(n))
        parsed.append(n)
print(json.dumps({"bad": bad, "names": z.namelist(), "parsed": parsed}))
`;

/** Every worksheet's cells as Python's XML parser reads them: {sheet: [[ref, type, style, value, text]]}. */
export const PY_SHEETS = `
import sys, json, zipfile, xml.etree.ElementTree as ET
NS = {'m': 'http://schemas.openxmlformats.org/spreadsheetml/2006/main', 'r': 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'}
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
wb = ET.fromstring(z.read('xl/workbook.xml'))
rels = ET.fromstring(z.read('xl/_rels/workbook.xml.rels'))
targets = {r.get('Id'): r.get('Target') for r in rels}
types = ET.fromstring(z.read('[Content_Types].xml'))
overrides = {o.get('PartName'): o.get('ContentType') for o in types if o.tag.endswith('Override')}
out = {"sheets": [], "styles": 'xl/styles.xml' in z.namelist()}
for s in wb.find('m:sheets', NS):
    rid = s.get('{%s}id' % NS['r'])
    path = 'xl/' + targets[rid]
    assert overrides['/' + path].endswith('worksheet+xml'), path
    ws = ET.fromstring(z.read(path))
    cells = []
    for row in ws.find('m:sheetData', NS):
        for c in row:
            v = c.find('m:v', NS)
            t = c.find('m:is/m:t', NS)
            cells.append([c.get('r'), c.get('t'), c.get('s'), v.text if v is not None else None, t.text if t is not None else None])
    out["sheets"].append({"name": s.get('name'), "path": path, "rows": len(list(ws.find('m:sheetData', NS))), "cells": cells})
print(json.dumps(out))
`;

/** openpyxl's view of the workbook: sheet names and every row's values (dates as ISO strings). */
export const PY_OPENPYXL = `
import sys, json, datetime, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=False)
def conv(v):
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)): return v.isoformat()
    return v
print(json.dumps({ws.title: [[conv(c) for c in row] for row in ws.iter_rows(values_only=True)] for ws in wb.worksheets}))
`;
