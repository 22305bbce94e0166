import { describe, expect, it, vi } from 'vitest';
import { collect, columnName, xlsxStream, XlsxStyle, type ExportField } from '../src/export/index.ts';
import { chunk, hasOpenpyxl, hasPython, PY_OPENPYXL, PY_SHEETS, PY_ZIP_CHECK, python, readZip } from './export-helpers.ts';

// These tests start a Python process to read what was written: seconds on a loaded machine (npm test runs
// the stack beside this suite), not the 5 s of vitest's default.
vi.setConfig({ testTimeout: 60_000 });

const FIELDS: ExportField[] = [
  { name: 'id', data_type: 'Integer' },
  { name: 'amount', data_type: 'Float' },
  { name: 'big', data_type: 'BigInt' },
  { name: 'label', data_type: 'String' },
  { name: 'paid', data_type: 'Boolean' },
  { name: 'day', data_type: 'Date' },
  { name: 'at', data_type: 'DateTime' },
  { name: 'clock', data_type: 'Time' },
  { name: 'doc', data_type: 'JSON' },
];

const LONG = 'é'.repeat(40_000);
const ROWS: unknown[][] = [
  [1, 1.5, 12, 'Fish & <Chips>', true, '2024-01-02', '2024-01-02T12:00:00Z', '06:00:00', { a: 1 }],
  [2, -0.25, '12345678901234567890', '  padded ', false, '1899-12-31', '2024-03-01T08:30:15.5+02:00', '23:59:59.999', [1, 'x']],
  [3, 1e-7, null, 'ctrl\u0001\u0008 tab\t nl\n', null, 'infinity', '1900-03-01T00:00:00Z', null, null],
  [4, null, 9007199254740991, LONG, true, null, null, null, 'plain'],
];

async function workbook(sheets: { name: string; rows: unknown[][] }[], opts = {}) {
  return collect(
    xlsxStream(
      sheets.map((s) => ({ name: s.name, fields: FIELDS, chunks: [chunk(s.rows.slice(0, 2)), chunk(s.rows.slice(2))] })),
      opts,
    ),
  );
}

describe('XLSX', () => {
  it('is a zip of the OOXML parts, every CRC right', async () => {
    const files = readZip(
      await workbook([
        { name: 'Sales', rows: ROWS },
        { name: 'Costs', rows: [] },
      ]),
    );
    expect(files.map((f) => f.name)).toEqual([
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
      'xl/workbook.xml',
      'xl/_rels/workbook.xml.rels',
      'xl/styles.xml',
      '_rels/.rels',
      '[Content_Types].xml',
    ]);
    const types = files.find((f) => f.name === '[Content_Types].xml')!.data.toString();
    expect(types).toContain(
      '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>',
    );
    const wb = files.find((f) => f.name === 'xl/workbook.xml')!.data.toString();
    expect(wb).toContain('<sheet name="Sales" sheetId="1" r:id="rId1"/><sheet name="Costs" sheetId="2" r:id="rId2"/>');
  });

  it.runIf(hasPython)('Python reads every part as XML and every cell as written', async () => {
    const bytes = await workbook([
      { name: 'Sales: 2024/Q1 [EUR]', rows: ROWS },
      { name: 'Sales: 2024/Q1 [EUR]', rows: ROWS.slice(0, 1) },
    ]);
    expect(python(bytes, PY_ZIP_CHECK).bad).toBeNull();
    const res = python(bytes, PY_SHEETS);
    expect(res.styles).toBe(true);
    expect(res.sheets.map((s: any) => s.name)).toEqual(['Sales 2024 Q1 EUR', 'Sales 2024 Q1 EUR (2)']);
    expect(res.sheets.map((s: any) => s.rows)).toEqual([5, 2]);
    const cells = new Map<string, [string | null, string | null, string | null, string | null]>(res.sheets[0].cells.map((c: any[]) => [c[0], c.slice(1)]));
    const S = (n: number) => String(n);
    // header: bold inline strings
    expect(cells.get('A1')).toEqual(['inlineStr', S(XlsxStyle.Header), null, 'id']);
    expect(cells.get('I1')).toEqual(['inlineStr', S(XlsxStyle.Header), null, 'doc']);
    // numbers stay numbers, booleans booleans
    expect(cells.get('A2')).toEqual([null, null, '1', null]);
    expect(cells.get('B3')).toEqual([null, null, '-0.25', null]);
    expect(cells.get('B4')).toEqual([null, null, '1e-7', null]);
    expect(cells.get('C5')).toEqual([null, null, '9007199254740991', null]);
    expect(cells.get('E2')).toEqual(['b', null, '1', null]);
    expect(cells.get('E3')).toEqual(['b', null, '0', null]);
    // a BigInt beyond 2^53 keeps its digits as text
    expect(cells.get('C3')).toEqual(['inlineStr', null, null, '12345678901234567890']);
    // dates: serial numbers with date styles (2024-01-02 is day 45293); wall-clock time kept
    expect(cells.get('F2')).toEqual([null, S(XlsxStyle.Date), '45293', null]);
    expect(cells.get('G2')).toEqual([null, S(XlsxStyle.DateTime), '45293.5', null]);
    expect(Number(cells.get('G3')![2])).toBeCloseTo(45352 + (8 * 3600 + 30 * 60 + 15.5) / 86400, 9);
    expect(cells.get('G4')).toEqual([null, S(XlsxStyle.DateTime), '61', null]);
    expect(cells.get('H2')).toEqual([null, S(XlsxStyle.Time), '0.25', null]);
    expect(Number(cells.get('H3')![2])).toBeCloseTo(86399.999 / 86400, 12);
    // what Excel cannot show as a date stays text
    expect(cells.get('F3')).toEqual(['inlineStr', null, null, '1899-12-31']);
    expect(cells.get('F4')).toEqual(['inlineStr', null, null, 'infinity']);
    // text: escaped, control characters dropped, spaces kept, cut at 32,767 characters
    expect(cells.get('D2')).toEqual(['inlineStr', null, null, 'Fish & <Chips>']);
    expect(cells.get('D3')).toEqual(['inlineStr', null, null, '  padded ']);
    expect(cells.get('D4')).toEqual(['inlineStr', null, null, 'ctrl tab\t nl\n']);
    expect(cells.get('D5')![3]).toBe('é'.repeat(32_767));
    // JSON as its text; NULL is no cell at all
    expect(cells.get('I2')).toEqual(['inlineStr', null, null, '{"a":1}']);
    expect(cells.get('I3')).toEqual(['inlineStr', null, null, '[1,"x"]']);
    expect(cells.has('C4')).toBe(false);
    expect(cells.has('I4')).toBe(false);
    expect(cells.has('B5')).toBe(false);
  });

  it.runIf(hasOpenpyxl)('openpyxl opens it with the values typed', async () => {
    const res = python(await workbook([{ name: 'Sales', rows: ROWS }]), PY_OPENPYXL, '.xlsx');
    const rows = res.Sales;
    expect(rows[0]).toEqual(FIELDS.map((f) => f.name));
    expect(rows[1]).toEqual([1, 1.5, 12, 'Fish & <Chips>', true, '2024-01-02T00:00:00', '2024-01-02T12:00:00', '06:00:00', '{"a":1}']);
    expect(rows[2].slice(0, 6)).toEqual([2, -0.25, '12345678901234567890', '  padded ', false, '1899-12-31']);
    expect(rows[2][6]).toMatch(/^2024-03-01T08:30:15\.5/);
    expect(rows[4][3].length).toBe(32_767);
  });

  it('continues a result past the row limit on further sheets, each with the header', async () => {
    const many = Array.from({ length: 7 }, (_, i) => [i, i / 2, i, `r${i}`, true, null, null, null, null]);
    for (const [rows, sheets] of [
      [7, 4],
      [6, 3],
      [1, 1],
      [0, 1],
    ] as const) {
      const files = readZip(
        await collect(
          xlsxStream([{ name: 'Long', fields: FIELDS, chunks: [chunk(many.slice(0, Math.min(3, rows))), chunk(many.slice(3, rows))] }], { maxRowsPerSheet: 3 }),
        ),
      );
      const sheetFiles = files.filter((f) => f.name.startsWith('xl/worksheets/'));
      expect(sheetFiles.length, `${rows} rows`).toBe(sheets);
      const wb = files.find((f) => f.name === 'xl/workbook.xml')!.data.toString();
      if (sheets > 1) expect(wb).toContain(`<sheet name="Long (${sheets})" sheetId="${sheets}"`);
      const all = sheetFiles.map((f) => f.data.toString());
      for (const xml of all) expect(xml).toContain('<row r="1"><c r="A1" s="4" t="inlineStr"><is><t>id</t></is></c>');
      const labels = all.flatMap((xml) => [...xml.matchAll(/<t>(r\d)<\/t>/g)].map((m) => m[1]));
      expect(labels).toEqual(many.slice(0, rows).map((r) => r[3]));
    }
  });

  it('a workbook without results still has one (empty) sheet', async () => {
    const files = readZip(await collect(xlsxStream([])));
    expect(files.filter((f) => f.name.startsWith('xl/worksheets/')).length).toBe(1);
  });

  it('names columns past Z like Excel', () => {
    expect([0, 25, 26, 51, 52, 701, 702, 16383].map(columnName)).toEqual(['A', 'Z', 'AA', 'AZ', 'BA', 'ZZ', 'AAA', 'XFD']);
  });
});
