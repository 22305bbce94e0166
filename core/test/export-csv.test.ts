import { describe, expect, it } from 'vitest';
import { collect, CsvWriter, csvStream, type CsvOptions, type ExportField } from '../src/export/index.ts';
import { chunk, dec, enc, parseCsv } from './export-helpers.ts';

const FIELDS: ExportField[] = [
  { name: 'id', data_type: 'Integer' },
  { name: 'amount', data_type: 'Float' },
  { name: 'big', data_type: 'BigInt' },
  { name: 'label', data_type: 'String' },
  { name: 'paid', data_type: 'Boolean' },
  { name: 'day', data_type: 'Date' },
  { name: 'at', data_type: 'DateTime' },
  { name: 'doc', data_type: 'JSON' },
];

const ROWS: unknown[][] = [
  [1, 1.5, 12, 'plain', true, '2024-02-29', '2024-02-29T23:59:58Z', { a: [1, 2.5], b: 'x' }],
  [-2, -0.25, '12345678901234567890', 'comma, inside', false, null, '2024-03-01T08:00:00.123+02:00', [1, 'two']],
  [3, 1e-7, null, 'semi;colon\ttab', null, '1999-12-31', null, null],
  [4, 0, 9007199254740991, 'say "hi"', true, null, null, 2.5],
  [5, 12345.678, -1, 'line\r\nbreak\nand\rCR', false, null, null, 'text'],
  [6, null, 0, '', null, null, null, null],
  [7, 2.0, 1, 'Grüße, 😀 \u00e9 \u0001', true, null, null, { '"quoted"': true }],
];

/** What each cell should read back as (before the decimal separator is applied). */
function expected(v: unknown): string | null {
  if (v === null) return null;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

const SEP = { comma: ',', semicolon: ';', tab: '\t' } as const;
const DEC = { point: '.', comma: ',', slash: '/' } as const;

async function csvOf(rows: unknown[][], opts: CsvOptions, bom = false, fields = FIELDS) {
  return dec.decode(await collect(csvStream(fields, [chunk(rows.slice(0, 3)), chunk(rows.slice(3))], opts, { bom })));
}

describe('CSV', () => {
  const matrix: CsvOptions[] = [];
  for (const column_separator of ['comma', 'semicolon', 'tab'] as const) {
    for (const decimal_separator of ['point', 'comma', 'slash'] as const) {
      if (column_separator === 'comma' && decimal_separator === 'comma') continue;
      for (const quote_style of ['necessary', 'always'] as const) matrix.push({ column_separator, decimal_separator, quote_style });
    }
  }

  it.each(matrix.map((o) => [`${o.column_separator} / ${o.decimal_separator} / ${o.quote_style}`, o] as const))(
    '%s reads back cell by cell',
    async (_, opts) => {
      const text = await csvOf(ROWS, opts);
      expect(text.endsWith('\r\n')).toBe(true);
      const parsed = parseCsv(text, SEP[opts.column_separator]);
      expect(parsed.length).toBe(ROWS.length + 1);
      expect(parsed[0]!.map((f) => f.value)).toEqual(FIELDS.map((f) => f.name));
      for (let r = 0; r < ROWS.length; r++) {
        const row = parsed[r + 1]!;
        expect(row.length, `row ${r}`).toBe(FIELDS.length);
        ROWS[r]!.forEach((v, c) => {
          const cell = row[c]!;
          const want = expected(v);
          if (want === null) {
            expect(cell, `null at ${r},${c}`).toEqual({ value: '', quoted: false });
            return;
          }
          const numeric = ['Integer', 'Float', 'BigInt'].includes(FIELDS[c]!.data_type) && typeof v === 'number';
          expect(cell.value, `cell ${r},${c}`).toBe(numeric ? want.replace('.', DEC[opts.decimal_separator]) : want);
          if (opts.quote_style === 'always') expect(cell.quoted, `quoted ${r},${c}`).toBe(true);
          else {
            const needs = /["\r\n]/.test(cell.value) || cell.value.includes(SEP[opts.column_separator]);
            expect(cell.quoted, `quoting of ${JSON.stringify(cell.value)}`).toBe(needs);
          }
        });
      }
    },
  );

  it('writes exactly RFC 4180 with the default options', async () => {
    const text = await csvOf(
      [
        [1, 2.5, 3, 'a,b', true, '2024-01-02', '2024-01-02T03:04:05Z', null],
        [2, null, null, 'say "x"\n', false, null, null, [1]],
      ],
      {
        column_separator: 'comma',
        decimal_separator: 'point',
        quote_style: 'necessary',
      },
    );
    expect(text).toBe(
      'id,amount,big,label,paid,day,at,doc\r\n' + '1,2.5,3,"a,b",true,2024-01-02,2024-01-02T03:04:05Z,\r\n' + '2,,,"say ""x""\n",false,,,[1]\r\n',
    );
  });

  it('European Excel style: semicolons, decimal comma, every field quoted', async () => {
    const text = await csvOf([[1, 2.5, 3, 'x', true, null, null, null]], { column_separator: 'semicolon', decimal_separator: 'comma', quote_style: 'always' });
    expect(text).toBe('"id";"amount";"big";"label";"paid";"day";"at";"doc"\r\n"1";"2,5";"3";"x";"true";;;\r\n');
  });

  it('only numbers of numeric fields get the decimal separator', async () => {
    const fields: ExportField[] = [
      { name: 'f', data_type: 'Float' },
      { name: 's', data_type: 'String' },
      { name: 'j', data_type: 'JSON' },
    ];
    const text = await csvOf([[1.25, '1.25', 1.25]], { column_separator: 'tab', decimal_separator: 'comma', quote_style: 'necessary' }, false, fields);
    expect(text).toBe('f\ts\tj\r\n1,25\t1.25\t1.25\r\n');
    const slash = await csvOf(
      [[-3.5e-7, 'a.b', { x: 0.5 }]],
      { column_separator: 'comma', decimal_separator: 'slash', quote_style: 'necessary' },
      false,
      fields,
    );
    expect(slash).toBe('f,s,j\r\n-3/5e-7,a.b,"{""x"":0.5}"\r\n');
  });

  it('decodes JSON escapes to UTF-8, surrogate pairs joined', async () => {
    const fields: ExportField[] = [{ name: 's', data_type: 'String' }];
    const raw = enc.encode('["\\u00e9\\ud83d\\ude00\\/\\\\\\t\\ud800x"]');
    const text = dec.decode(await collect(csvStream(fields, [raw], undefined, { bom: false })));
    expect(text).toBe('s\r\né😀/\\\t\ufffdx\r\n');
  });

  it('starts with a byte order mark unless told not to', async () => {
    const bytes = await collect(csvStream(FIELDS, [chunk(ROWS)]));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const without = await collect(csvStream(FIELDS, [chunk(ROWS)], undefined, { bom: false }));
    expect(without[0]).toBe(0x69); // "i" of "id"
    expect(bytes.length - without.length).toBe(3);
  });

  it('quotes header names that need it', async () => {
    const text = await csvOf([], { column_separator: 'comma', decimal_separator: 'point', quote_style: 'necessary' }, false, [
      { name: 'a,b', data_type: 'String' },
      { name: 'say "c"', data_type: 'String' },
      { name: 'plain', data_type: 'String' },
    ]);
    expect(text).toBe('"a,b","say ""c""",plain\r\n');
  });

  it('refuses a decimal separator equal to the column separator', () => {
    expect(() => new CsvWriter(FIELDS, { column_separator: 'comma', decimal_separator: 'comma', quote_style: 'necessary' })).toThrow(/differ/);
  });

  it('tolerates whitespace between stored cells and rows', async () => {
    const fields: ExportField[] = [
      { name: 'a', data_type: 'Integer' },
      { name: 'b', data_type: 'JSON' },
    ];
    const raw = enc.encode(' [ 1 , {"k": [1, "]"]} ] ,\n[2,null]');
    const text = dec.decode(await collect(csvStream(fields, [raw], undefined, { bom: false })));
    expect(text).toBe('a,b\r\n1,"{""k"": [1, ""]""]}"\r\n2,\r\n');
  });

  it('a broken chunk fails the stream instead of writing nonsense', async () => {
    const fields: ExportField[] = [{ name: 'a', data_type: 'String' }];
    await expect(collect(csvStream(fields, [enc.encode('["unterminated]')]))).rejects.toThrow(/not valid row JSON/);
    await expect(collect(csvStream(fields, [enc.encode('{"a":1}')]))).rejects.toThrow(/not valid row JSON/);
  });
});
