import { describe, expect, it } from 'vitest';
import { ByteWriter, Cell, contentDisposition, END_OF_ROW, fileNamer, RowCursor, sheetNamer, unescapeJsonString } from '../src/export/index.ts';
import { dec, enc } from './export-helpers.ts';

describe('sheet names', () => {
  it("follow Excel's rules and stay unique", () => {
    const name = sheetNamer();
    const got = [
      name('Revenue [EUR]: by month / country?*\\'),
      name('A very long report name that goes on and on'),
      name('A very long report name that goes on and on'),
      name('revenue  eur    by month   country'),
      name("'quoted'"),
      name(''),
      name('History'),
      name('😀'.repeat(20)),
      name('Sales'),
      name('SALES'),
    ];
    for (const n of got) {
      expect(n.length, n).toBeLessThanOrEqual(31);
      expect(n, n).not.toMatch(/[[\]:*?/\\]/);
      expect(n).not.toMatch(/^'|'$/);
      expect(n.trim()).toBe(n);
      expect(n.length).toBeGreaterThan(0);
    }
    expect(new Set(got.map((n) => n.toLowerCase())).size).toBe(got.length);
    expect(got[0]).toBe('Revenue EUR by month country');
    expect(got[1]).toBe('A very long report name that go');
    expect(got[2]).toBe('A very long report name tha (2)');
    expect(got[4]).toBe('quoted');
    expect(got[5]).toBe('Sheet 6');
    expect(got[6]).toBe('History (report)');
    expect(got[7]).toBe('😀'.repeat(15)); // 30 UTF-16 units: a pair is never split
    expect(got[9]).toBe('SALES (2)');
  });
});

describe('file names', () => {
  it('are safe on every system and unique', () => {
    const name = fileNamer('.csv');
    expect(name('Revenue / Country: "EU"?')).toBe('Revenue Country EU.csv');
    expect(name('revenue country eu')).toBe('revenue country eu (2).csv');
    expect(name('...hidden. ')).toBe('hidden.csv');
    expect(name('')).toBe('data.csv');
    expect(name('CON')).toBe('CON_.csv');
    expect(name('x'.repeat(300)).length).toBe(104);
  });

  it('Content-Disposition carries an ASCII fallback and the UTF-8 name', () => {
    expect(contentDisposition('Umsätze "2024".xlsx')).toBe(`attachment; filename="Umsatze _2024_.xlsx"; filename*=UTF-8''Ums%C3%A4tze%20%222024%22.xlsx`);
    expect(contentDisposition('😀.csv')).toBe(`attachment; filename=".csv"; filename*=UTF-8''%F0%9F%98%80.csv`);
  });
});

describe('reading stored chunks', () => {
  it('walks rows and cells with their kinds', () => {
    const c = new RowCursor(enc.encode('[1,"a\\"b",null,true,false,-2.5e3,{"x":"]"},[1,[2]]],[]'));
    const seen: [number, string][] = [];
    expect(c.nextRow()).toBe(true);
    for (let k = c.nextCell(); k !== END_OF_ROW; k = c.nextCell()) seen.push([k, dec.decode(c.data.subarray(c.start, c.end))]);
    expect(seen).toEqual([
      [Cell.Number, '1'],
      [Cell.String, 'a\\"b'],
      [Cell.Null, 'null'],
      [Cell.True, 'true'],
      [Cell.False, 'false'],
      [Cell.Number, '-2.5e3'],
      [Cell.Raw, '{"x":"]"}'],
      [Cell.Raw, '[1,[2]]'],
    ]);
    expect(c.nextRow()).toBe(true);
    expect(c.nextCell()).toBe(END_OF_ROW);
    expect(c.nextRow()).toBe(false);
  });

  it('decodes every JSON string escape as JSON.parse does', () => {
    const samples = ['', 'plain', 'tab\there', 'nl\nr\r', 'quote " back \\ slash /', '\u0000\u001f\u007f', 'é ü ß', '😀 𝄞', '\u2028\u2029', 'x'.repeat(3000)];
    for (let i = 0; i < 200; i++) {
      let s = '';
      for (let k = 0; k < 20; k++) s += String.fromCodePoint(Math.floor(Math.random() * 0x2ffff) % 0xd800);
      samples.push(s);
    }
    for (const s of samples) {
      const json = enc.encode(JSON.stringify(s));
      const out = new ByteWriter(16);
      unescapeJsonString(json, 1, json.length - 1, out);
      expect(dec.decode(out.buf.subarray(0, out.len))).toBe(s);
      // and the same with every character \u-escaped
      const escaped = enc.encode(
        s
          .split('')
          .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`)
          .join(''),
      );
      const out2 = new ByteWriter(16);
      unescapeJsonString(escaped, 0, escaped.length, out2);
      expect(dec.decode(out2.buf.subarray(0, out2.len))).toBe(s);
    }
  });
});
