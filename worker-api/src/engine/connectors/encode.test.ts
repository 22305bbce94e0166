import { describe, expect, it } from 'vitest';
import { Kind, type EncodedColumn } from '../types.ts';
import { JsonWriter, writeBase64 } from './json-writer.ts';
import { encodeText, encodeValue } from './encode.ts';
import { ColumnStats, UNIQUE_CAP, hashBytes } from './stats.ts';
import { ResultWriter, type ResultChunk } from '../result.ts';
import { currentOffset } from './mysql.ts';
import { pgColumn, pgTypeNameToDataType } from './postgres-types.ts';
import { mysqlTypeNameToDataType } from './mysql-types.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
const written = (w: JsonWriter) => dec.decode(w.buf.subarray(0, w.len));

/** The JSON text one database text value becomes. */
function text(kind: Kind, value: string, element?: Kind): string {
  const w = new JsonWriter(8);
  encodeText(kind, enc.encode(value), w, element);
  return written(w);
}
function value(kind: Kind, v: unknown): string {
  const w = new JsonWriter(8);
  encodeValue(kind, v, w);
  return written(w);
}

describe('JSON strings', () => {
  it('escapes quotes, backslashes and every control character, from bytes and from JS strings', () => {
    const all = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('') + '"\\/ \u007f é 😀 \u2028';
    expect(JSON.parse(text(Kind.Text, all))).toBe(all);
    expect(JSON.parse(value(Kind.Text, all))).toBe(all);
    expect(text(Kind.Text, 'a"b\\c\nd\u0001')).toBe('"a\\"b\\\\c\\nd\\u0001"');
  });

  it('round-trips random unicode strings; lone surrogates become U+FFFD', () => {
    for (let n = 0; n < 200; n++) {
      const s = Array.from({ length: n % 40 }, () =>
        String.fromCodePoint([0x41, 0x22, 0x5c, 0x0a, 0xe9, 0x4e2d, 0x1f600, 0x10ffff][Math.floor(Math.random() * 8)]!),
      ).join('');
      expect(JSON.parse(value(Kind.Text, s))).toBe(s);
      expect(JSON.parse(text(Kind.Text, s))).toBe(s);
    }
    expect(JSON.parse(value(Kind.Text, 'a\ud800b'))).toBe('a\ufffdb');
    expect(JSON.parse(value(Kind.Text, '\udc00'))).toBe('\ufffd');
  });

  it('grows its buffer for long values', () => {
    const long = 'x"'.repeat(100_000);
    expect(JSON.parse(text(Kind.Text, long))).toBe(long);
    expect(JSON.parse(value(Kind.Text, long))).toBe(long);
  });
});

describe('values by kind', () => {
  it('base64 for binary, from Postgres hex text and from bytes', () => {
    for (let n = 0; n < 12; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 97 + n) & 255);
      const expected = btoa(String.fromCharCode(...bytes));
      const w = new JsonWriter(4);
      writeBase64(w, bytes);
      expect(written(w)).toBe(JSON.stringify(expected));
      const hex = '\\x' + [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
      expect(text(Kind.Binary, hex)).toBe(JSON.stringify(expected));
      expect(value(Kind.Binary, bytes)).toBe(JSON.stringify(expected));
    }
  });

  it('64-bit integers: numbers while exact, strings beyond 2^53', () => {
    expect(text(Kind.BigInt, '9007199254740991')).toBe('9007199254740991');
    expect(text(Kind.BigInt, '-9007199254740991')).toBe('-9007199254740991');
    expect(text(Kind.BigInt, '9007199254740992')).toBe('"9007199254740992"');
    expect(text(Kind.BigInt, '-9223372036854775808')).toBe('"-9223372036854775808"');
    expect(text(Kind.BigInt, '8999999999999999')).toBe('8999999999999999');
    expect(value(Kind.BigInt, '18446744073709551615')).toBe('"18446744073709551615"');
    expect(value(Kind.BigInt, 42n)).toBe('42');
  });

  it('floats and decimals: the digits as given; NaN and infinities are null', () => {
    expect(text(Kind.Float, '1e+20')).toBe('1e+20');
    expect(text(Kind.Float, '-0')).toBe('-0');
    for (const special of ['NaN', 'Infinity', '-Infinity']) {
      expect(text(Kind.Float, special)).toBe('null');
      expect(text(Kind.Decimal, special)).toBe('null');
    }
    expect(text(Kind.Decimal, '-0.000000000000000000001')).toBe('-0.000000000000000000001');
    expect(value(Kind.Float, Number.NaN)).toBe('null');
    expect(value(Kind.Decimal, '12.50')).toBe('12.50');
  });

  it('booleans from Postgres text, MySQL numbers and BIT bytes', () => {
    expect(text(Kind.Bool, 't')).toBe('true');
    expect(text(Kind.Bool, 'f')).toBe('false');
    expect(value(Kind.Bool, 1)).toBe('true');
    expect(value(Kind.Bool, 0)).toBe('false');
    expect(value(Kind.Bool, Uint8Array.of(0))).toBe('false');
    expect(value(Kind.Bool, Uint8Array.of(1))).toBe('true');
    expect(value(Kind.BigInt, Uint8Array.of(1, 0))).toBe('256');
  });

  it('date-times: ISO with Z, fractions without trailing zeros, offsets moved to UTC', () => {
    expect(text(Kind.DateTime, '2024-03-05 06:07:08')).toBe('"2024-03-05T06:07:08Z"');
    expect(text(Kind.DateTime, '2024-03-05 06:07:08.120000')).toBe('"2024-03-05T06:07:08.12Z"');
    expect(text(Kind.DateTime, '2024-03-05 06:07:08.000+00')).toBe('"2024-03-05T06:07:08Z"');
    expect(text(Kind.DateTime, '2024-03-05 06:07:08.5+05:30')).toBe('"2024-03-05T00:37:08.5Z"');
    expect(text(Kind.DateTime, '2024-01-01 01:00:00-08')).toBe('"2024-01-01T09:00:00Z"');
    expect(text(Kind.DateTime, '2024-01-01 01:00:00+05')).toBe('"2023-12-31T20:00:00Z"');
    expect(text(Kind.DateTime, '1900-01-01 00:00:00+00:09:21')).toBe('"1899-12-31T23:50:39Z"');
    expect(text(Kind.DateTime, '0044-03-15 12:00:00 BC')).toBe('"0044-03-15 12:00:00 BC"');
    expect(text(Kind.DateTime, 'infinity')).toBe('"infinity"');
    expect(text(Kind.DateTime, '0000-00-00 00:00:00')).toBe('null');
    expect(value(Kind.DateTime, '2024-03-05 06:07:08.500000')).toBe('"2024-03-05T06:07:08.5Z"');
  });

  it('dates and times', () => {
    expect(text(Kind.Date, '2024-02-29')).toBe('"2024-02-29"');
    expect(text(Kind.Date, '0000-00-00')).toBe('null');
    expect(text(Kind.Time, '23:59:59.250000')).toBe('"23:59:59.25"');
    expect(text(Kind.Time, '10:00:00.000+05:30')).toBe('"10:00:00+05:30"');
    expect(text(Kind.Time, '-838:59:59')).toBe('"-838:59:59"');
  });

  it('Postgres arrays: nested, quoted, NULL, explicit bounds, element kinds', () => {
    expect(text(Kind.Array, '{1,NULL,3}', Kind.Int)).toBe('[1,null,3]');
    expect(text(Kind.Array, '{}', Kind.Int)).toBe('[]');
    expect(JSON.parse(text(Kind.Array, '{"a,b","say \\"hi\\"","back\\\\slash",NULL,"NULL",plain}', Kind.Text))).toEqual([
      'a,b',
      'say "hi"',
      'back\\slash',
      null,
      'NULL',
      'plain',
    ]);
    expect(JSON.parse(text(Kind.Array, '{{1,2},{3,4}}', Kind.Int))).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(JSON.parse(text(Kind.Array, '[0:1]={7,8}', Kind.Int))).toEqual([7, 8]);
    expect(JSON.parse(text(Kind.Array, '{"2024-01-01 00:00:00+00"}', Kind.DateTime))).toEqual(['2024-01-01T00:00:00Z']);
    expect(JSON.parse(text(Kind.Array, '{"\\\\x0102"}', Kind.Binary))).toEqual([btoa('\u0001\u0002')]);
    expect(JSON.parse(text(Kind.Array, '{"{\\"a\\": 1}",null}', Kind.Json))).toEqual([{ a: 1 }, null]);
    expect(JSON.parse(text(Kind.Array, '{t,f}', Kind.Bool))).toEqual([true, false]);
  });

  it('JSON values are embedded; other driver objects become their JSON', () => {
    expect(JSON.parse(text(Kind.Json, '{"a": [1, "x"]}'))).toEqual({ a: [1, 'x'] });
    expect(JSON.parse(value(Kind.Json, '{"é": "😀"}'))).toEqual({ é: '😀' });
    expect(JSON.parse(value(Kind.Other, { x: 1, y: 2 }))).toEqual({ x: 1, y: 2 });
  });
});

describe('field statistics', () => {
  const see = (stats: ColumnStats, kind: Kind, values: (string | null)[]) => {
    for (const v of values) {
      const w = new JsonWriter(8);
      if (v === null) w.nul();
      const key = v === null ? NaN : encodeText(kind, enc.encode(v), w);
      stats.see(w.buf, 0, w.len, key);
    }
  };

  it('numeric min and max by value; nulls ignored', () => {
    const s = new ColumnStats(true);
    see(s, Kind.Decimal, ['10', '-2.5', null, '9.75', '100', '-2.25']);
    expect([s.minValue(), s.maxValue(), s.uniqueCount]).toEqual([-2.5, 100, 5]);
    const big = new ColumnStats(true);
    see(big, Kind.BigInt, ['9007199254740993', '1', '9223372036854775807']);
    expect(big.maxValue()).toBe('9223372036854775807');
  });

  it('text min and max: a prefix sorts first', () => {
    const s = new ColumnStats(false);
    see(s, Kind.Text, ['ab!', 'abc', 'ab', 'b', 'a"']);
    expect([s.minValue(), s.maxValue()]).toEqual(['a"', 'b']);
    const t = new ColumnStats(false);
    see(t, Kind.Text, ['abc', 'ab!']);
    expect(t.minValue()).toBe('ab!');
  });

  it('date-times order by time whatever their fraction', () => {
    const s = new ColumnStats(false, true);
    see(s, Kind.DateTime, ['2024-01-01 00:00:05.5', '2024-01-01 00:00:05', '2024-01-01 00:00:05.25', '2024-01-01 00:00:04.999']);
    expect([s.minValue(), s.maxValue()]).toEqual(['2024-01-01T00:00:04.999Z', '2024-01-01T00:00:05.5Z']);
  });

  it('counts distinct values up to the cap', () => {
    const s = new ColumnStats(true);
    const w = new JsonWriter(32);
    for (let i = 0; i < UNIQUE_CAP + 500; i++) {
      w.len = 0;
      w.ascii(String(i % (UNIQUE_CAP + 100)));
      s.see(w.buf, 0, w.len, i);
    }
    expect(s.uniqueCount).toBe(UNIQUE_CAP);
    const few = new ColumnStats(false);
    see(few, Kind.Text, ['a', 'b', 'a', 'c', 'b', 'a']);
    expect(few.uniqueCount).toBe(3);
  });

  it('hashes differ for near-identical values', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 50_000; i++) seen.add(hashBytes(enc.encode(`customer_${i}`), 0, enc.encode(`customer_${i}`).length));
    expect(seen.size).toBeGreaterThan(49_990);
  });
});

describe('ResultWriter', () => {
  const columns: EncodedColumn[] = [
    { name: 'id', data_type: 'Integer', db_type: 'int4', kind: Kind.Int },
    { name: 'label', data_type: 'String', db_type: 'text', kind: Kind.Text },
  ];

  it('cuts rows into chunks of about the chunk size, each valid JSON, none lost', async () => {
    const writer = new ResultWriter(columns, 100);
    const chunks: ResultChunk[] = [];
    const sink = { chunk: (c: ResultChunk) => void chunks.push(c) };
    for (let i = 1; i <= 1000; i++) {
      writer.textRow([enc.encode(String(i)), i % 7 ? enc.encode(`row "${i}"`) : null]);
      if (writer.hasPending) await writer.drain(sink);
    }
    await writer.drain(sink, true);
    expect(chunks.length).toBeGreaterThan(50);
    expect(chunks.reduce((a, c) => a + c.rows, 0)).toBe(1000);
    expect(writer.sizeInBytes).toBe(chunks.reduce((a, c) => a + c.data.length, 0));
    for (const c of chunks) expect(JSON.parse(`[${dec.decode(c.data)}]`)).toHaveLength(c.rows);
    const rows = JSON.parse(`[${chunks.map((c) => dec.decode(c.data)).join(',')}]`);
    expect(rows[6]).toEqual([7, null]);
    expect(rows[999]).toEqual([1000, 'row "1000"']);
    expect(writer.fields()[0]).toMatchObject({ min_value: 1, max_value: 1000, unique_count: 1000, human_name: 'Id', group_by: false });
    expect(writer.fields()[1]).toMatchObject({ unique_count: 858, group_by: true });
  });

  it('JS-value rows and text rows give the same JSON', async () => {
    const a = new ResultWriter(columns);
    const b = new ResultWriter(columns);
    a.textRow([enc.encode('5'), enc.encode('x')]);
    b.valueRow([5, 'x']);
    const out: string[] = [];
    await a.drain({ chunk: (c) => void out.push(dec.decode(c.data)) }, true);
    await b.drain({ chunk: (c) => void out.push(dec.decode(c.data)) }, true);
    expect(out).toEqual(['[5,"x"]', '[5,"x"]']);
  });

  it('an empty result has no chunks', async () => {
    const writer = new ResultWriter(columns);
    const chunks: ResultChunk[] = [];
    await writer.drain({ chunk: (c) => void chunks.push(c) }, true);
    expect(chunks).toEqual([]);
    expect(writer.summary()).toMatchObject({
      rowCount: 0,
      sizeInBytes: 0,
      columns: [{ name: 'id', data_type: 'Integer', db_type: 'int4' }, expect.anything()],
    });
  });
});

describe('type names', () => {
  it('Postgres result oids and schema type names', () => {
    expect(pgColumn('x', 1184)).toMatchObject({ data_type: 'DateTime', db_type: 'timestamptz' });
    expect(pgColumn('x', 1016)).toMatchObject({ data_type: 'Array<BigInt>', db_type: '_int8', kind: Kind.Array, elementKind: Kind.BigInt });
    expect(pgColumn('x', 999_999)).toMatchObject({ data_type: 'Other', kind: Kind.Other });
    expect(pgTypeNameToDataType('character varying(255)')).toBe('String');
    expect(pgTypeNameToDataType('timestamp(3) with time zone')).toBe('DateTime');
    expect(pgTypeNameToDataType('numeric(10,2)[]')).toBe('Array<Float>');
    expect(pgTypeNameToDataType('_int4')).toBe('Array<Integer>');
    expect(pgTypeNameToDataType('ARRAY')).toBe('Array<Other>');
    expect(pgTypeNameToDataType('geometry')).toBe('Other');
  });

  it('MySQL schema type names', () => {
    expect(mysqlTypeNameToDataType('tinyint', 'tinyint(1)')).toBe('Boolean');
    expect(mysqlTypeNameToDataType('tinyint', 'tinyint(4)')).toBe('Integer');
    expect(mysqlTypeNameToDataType('bigint', 'bigint(20) unsigned')).toBe('BigInt');
    expect(mysqlTypeNameToDataType('longblob', 'longblob')).toBe('Binary');
    expect(mysqlTypeNameToDataType('point', 'point')).toBe('Other');
  });

  it("a zone's current offset for servers without zone tables", () => {
    expect(currentOffset('UTC')).toBe('+00:00');
    expect(currentOffset('Asia/Kolkata')).toBe('+05:30');
    expect(currentOffset('America/New_York', new Date('2024-01-15T12:00:00Z'))).toBe('-05:00');
    expect(currentOffset('America/New_York', new Date('2024-07-15T12:00:00Z'))).toBe('-04:00');
  });
});
