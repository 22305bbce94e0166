import { describe, expect, it } from 'vitest';
import { ClickhouseConnector } from './index.ts';
import { LineReader, basicAuth } from './http-common.ts';
import { parseClickhouseError, unescapeCell } from './clickhouse.ts';
import { collect } from '../../../test/connectors-fixtures.ts';

/** A body delivered in pieces of `size` bytes (how a slow network splits it). */
function trickle(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(ctl) {
      if (at >= bytes.length) return ctl.close();
      ctl.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

describe('HTTP connector pieces', () => {
  it('LineReader hands out lines however the body is split, and the unterminated rest as partial', async () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const r = new LineReader(trickle('first\nsecond line\n\nlast', size).getReader());
      const out: [string, boolean][] = [];
      for (let l = await r.next(); l; l = await r.next()) out.push([new TextDecoder().decode(l.line), l.partial]);
      expect(out).toEqual([
        ['first', false],
        ['second line', false],
        ['', false],
        ['last', true],
      ]);
    }
  });

  it('ClickHouse TabSeparatedWithNamesAndTypes read from a body split into single bytes', async () => {
    const body = 'id\tname\\tx\nUInt8\tNullable(String)\n1\ta\\nb\n2\t\\N\n';
    const connector = new ClickhouseConnector(
      { host: 'ch.example', port: 8123, user: 'u', password: 'p', requireSsl: false, verifySsl: false },
      undefined,
      async () =>
        new Response(trickle(body, 1), { headers: { 'content-type': 'text/tab-separated-values; charset=UTF-8', 'x-clickhouse-server-display-name': 'x' } }),
    );
    const { summary, rows } = await collect(connector, 'SELECT 1');
    expect(summary.columns).toEqual([
      { name: 'id', data_type: 'Integer', db_type: 'UInt8' },
      { name: 'name\tx', data_type: 'String', db_type: 'Nullable(String)' },
    ]);
    expect(rows).toEqual([
      [1, 'a\nb'],
      [2, null],
    ]);
  });

  it('ClickHouse error texts of old and new servers; cell escapes; Basic auth in UTF-8', () => {
    expect(parseClickhouseError('Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 1, e.what() = DB::Exception\n')).toEqual({
      code: 62,
      message: 'Syntax error: failed at position 1',
    });
    expect(parseClickhouseError('Code: 60. DB::Exception: Table default.nope does not exist. (UNKNOWN_TABLE) (version 23.8.2.7 (official build))\n')).toEqual({
      code: 60,
      message: 'Table default.nope does not exist',
    });
    expect(parseClickhouseError('<html>not clickhouse</html>')).toBeNull();
    const dec = (s: string) => {
      const c = unescapeCell(new TextEncoder().encode(s));
      return c && new TextDecoder().decode(c);
    };
    expect(dec('\\N')).toBeNull();
    expect(dec("a\\tb\\\\c\\'d\\0")).toBe("a\tb\\c'd\0");
    expect(basicAuth('zoë', 'pä')).toBe(`Basic ${btoa(String.fromCharCode(...new TextEncoder().encode('zoë:pä')))}`);
  });
});
