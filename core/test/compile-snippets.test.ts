/** Snippets: replacement, nesting, cycles, parameters, built-ins, bracketed SQL left alone, references. */
import { describe, expect, it } from 'vitest';
import { sqlReferences, type SnippetDefinition } from '../src/index.ts';
import { DIALECTS, compile, filter, ph, pick, rejects } from './sql-helpers.ts';

const snippets: SnippetDefinition[] = [
  { name: 'paid', text: "status = 'paid'" },
  { name: 'revenue', text: 'sum(total) FILTER (WHERE [paid])' },
  { name: 'recent', text: '{created_at=timerange}' },
  { name: 'above', text: 'total > {{min}} AND currency = {{cur}}', params: ['min', 'cur'] },
  { name: 'wrap', text: "([above({{n}}, 'EUR')])", params: ['n'] },
  { name: 'twice', text: '{{v}} + {{v}}', params: ['v'] },
  { name: 'me', text: 'owner = [CAIRN_USER_EMAIL]' },
];

describe.each(DIALECTS)('snippets (%s)', (dialect) => {
  const c = (sql: string, extra = {}) => compile(dialect, sql, { snippets, ...extra });
  const p = (n: number) => ph(dialect, n);

  it('replaces [name] by the snippet text, nested snippets included, and reports them', () => {
    const r = c('SELECT [revenue] FROM orders WHERE [paid]');
    expect(r.text).toBe("SELECT sum(total) FILTER (WHERE status = 'paid') FROM orders WHERE status = 'paid'");
    expect(r.values).toEqual([]);
    expect(r.snippets).toEqual(['revenue', 'paid']);
  });

  it('compiles filter syntax inside snippets', () => {
    const r = c('SELECT * FROM o WHERE [recent]', { parameters: { timerange: '1700000000~' } });
    expect(r.text).toBe(`SELECT * FROM o WHERE (created_at >= ${p(1)})`);
    expect(r.variables).toEqual(['timerange']);
  });

  it('leaves every other bracketed SQL alone', () => {
    const sql = [
      'SELECT [col], [Order Details].[Unit Price], a[1], a[1:2], ARRAY[1, 2], x[i], matrix[1][2], [unknown(1)]',
      "FROM t WHERE j @> '[1]' AND k = '[paid]'",
    ].join(' ');
    expect(c(sql).text).toBe(sql);
  });

  it('does not expand snippets inside literals or comments', () => {
    const sql = "SELECT '[paid]' -- [paid]\n/* [paid] */";
    expect(c(sql).text).toBe(sql);
  });

  it('binds parameter arguments: numbers, quoted strings, TRUE/FALSE/NULL', () => {
    const r = c("WHERE [above(100, 'EUR')] AND [above(-2.5e1, 'it''s')] AND [twice(TRUE)] AND [twice(null)]");
    expect(r.text).toBe(`WHERE total > ${p(1)} AND currency = ${p(2)} AND total > ${p(3)} AND currency = ${p(4)} AND ${p(5)} + ${p(6)} AND ${p(7)} + ${p(8)}`);
    expect(r.values).toEqual([100, 'EUR', -25, "it's", true, true, null, null]);
    expect(c('WHERE [twice(12345678901234567890)]').values).toEqual(['12345678901234567890', '12345678901234567890']);
  });

  it('passes a parameter on to a nested snippet', () => {
    const r = c('WHERE [wrap(5)]');
    expect(r.text).toBe(`WHERE (total > ${p(1)} AND currency = ${p(2)})`);
    expect(r.values).toEqual([5, 'EUR']);
  });

  it('keeps values in text order across snippets, filters and built-ins (what ? placeholders need)', () => {
    const r = c("SELECT [twice('a')], {country.value}, [CAIRN_USER_EMAIL], [twice('b')]", {
      filters: [filter('country', 'dropdown')],
      parameters: pick({ country: ['DE'] }),
      context: { userEmail: 'u@x' },
    });
    expect(r.values).toEqual(['a', 'a', 'DE', 'u@x', 'b', 'b']);
  });

  it('repeats a snippet expression with its values where the condition needs it twice', () => {
    const r = c('WHERE {[[twice(1)]]=country}', { filters: [filter('country', 'dropdown_multi')], parameters: pick({ country: ['DE', null] }) });
    expect(r.text).toBe(`WHERE ((${p(1)} + ${p(2)}) = ${p(3)} OR (${p(4)} + ${p(5)}) IS NULL)`);
    expect(r.values).toEqual([1, 1, 'DE', 1, 1]);
  });

  it('refuses a wrong number of arguments, naming the snippet and its parameters', () => {
    rejects(() => c('WHERE [above(1)]'), /Snippet \[above\] takes 2 arguments \(min, cur\); 1 given/, '/sql_query');
    rejects(() => c('WHERE [above]'), /takes 2 arguments \(min, cur\); 0 given/);
    rejects(() => c('WHERE [paid(1)]'), /Snippet \[paid\] takes no arguments; 1 given/);
    expect(c('WHERE [paid()]').text).toBe("WHERE status = 'paid'");
  });

  it('refuses arguments that are not literals', () => {
    rejects(() => c('WHERE [above(total, 1)]'), /Snippet \[above\]: argument total is not a literal/);
    rejects(() => c("WHERE [above(1 + 1, 'x')]"), /expected "," or "\)" after argument 1/);
    rejects(() => c("WHERE [above('open, 1)]"), /not a literal|not closed/);
  });

  it('refuses {{param}} that is not a parameter, or that sits inside quotes', () => {
    const bad = [
      { name: 'q', text: 'x = {{nope}}', params: ['p'] },
      { name: 'lit', text: "name LIKE '{{p}}%'", params: ['p'] },
      { name: 'bare', text: 'x = {{p}}' },
    ];
    rejects(() => compile(dialect, "[q('a')]", { snippets: bad }), /Snippet "q" uses \{\{nope\}\}, which is not one of its parameters \(p\)/);
    rejects(() => compile(dialect, "[lit('a')]", { snippets: bad }), /\{\{p\}\} is inside quotes, where it cannot be bound/);
    rejects(() => compile(dialect, '[bare]', { snippets: bad }), /not one of its parameters \(it has none\)/);
    // Outside snippets {{…}} is not Cairn syntax.
    expect(compile(dialect, 'SELECT {{x}}').text).toBe('SELECT {{x}}');
  });

  it('refuses cycles, naming them', () => {
    const cyc = [
      { name: 'a', text: 'x + [b]' },
      { name: 'b', text: '[c] - 1' },
      { name: 'c', text: '[a]' },
      { name: 'self', text: '[self]' },
    ];
    rejects(() => compile(dialect, 'SELECT [a]', { snippets: cyc }), /cycle: \[a\] → \[b\] → \[c\] → \[a\]/, '/sql_query');
    rejects(() => compile(dialect, 'SELECT [b]', { snippets: cyc }), /\[b\] → \[c\] → \[a\] → \[b\]/);
    rejects(() => compile(dialect, 'SELECT [self]', { snippets: cyc }), /cycle: \[self\] → \[self\]/);
  });

  it('a snippet used many times in one query is fine; deep nesting and exponential growth are refused', () => {
    expect(c('SELECT [paid], [paid], [paid]').snippets).toEqual(['paid']);
    const chain = Array.from({ length: 40 }, (_, i) => ({ name: `s${i}`, text: i === 39 ? '1' : `[s${i + 1}]` }));
    rejects(() => compile(dialect, '[s0]', { snippets: chain }), /nested more than 32 deep/);
    const bomb = Array.from({ length: 12 }, (_, i) => ({ name: `b${i}`, text: i === 11 ? 'x'.repeat(100) : `[b${i + 1}]`.repeat(8) }));
    rejects(() => compile(dialect, '[b0]', { snippets: bomb }), /grows beyond 2000000 characters/);
  });

  it('expands snippets inside a condition expression', () => {
    const r = compile(dialect, 'WHERE {[[amount]]=qty}', {
      snippets: [{ name: 'amount', text: 'total * rate' }],
      filters: [filter('qty', 'input', 'NUMBER')],
      parameters: pick({ qty: [3] }),
    });
    expect(r.text).toBe(`WHERE ((total * rate) = ${p(1)})`);
  });
});

describe.each(DIALECTS)('built-in snippets (%s)', (dialect) => {
  const context = {
    userEmail: 'ada@example.com',
    userFirstname: 'Ada',
    userLastname: 'Lovelace',
    userRole: 'analyst',
    dashboardName: 'Sales',
    dashboardId: 'dsh_123',
  };
  const sql = 'SELECT [CAIRN_USER_EMAIL], [CAIRN_USER_FIRSTNAME], [CAIRN_USER_LASTNAME], [CAIRN_USER_ROLE], [CAIRN_DASHBOARD_NAME], [CAIRN_DASHBOARD_ID]';

  it('bind the context values', () => {
    const r = compile(dialect, sql, { context });
    expect(r.text).toBe(`SELECT ${[1, 2, 3, 4, 5, 6].map((n) => ph(dialect, n)).join(', ')}`);
    expect(r.values).toEqual(['ada@example.com', 'Ada', 'Lovelace', 'analyst', 'Sales', 'dsh_123']);
  });

  it('are NULL without a user (sharing links, API keys, schedules) or without a context', () => {
    expect(compile(dialect, sql, { context: { userEmail: null, userRole: null, dashboardName: 'Sales', dashboardId: 'dsh_1' } }).values).toEqual([
      null,
      null,
      null,
      null,
      'Sales',
      'dsh_1',
    ]);
    expect(compile(dialect, sql).values).toEqual([null, null, null, null, null, null]);
  });

  it('work inside custom snippets, win over a custom snippet of the same name, take no arguments', () => {
    const r = compile(dialect, 'WHERE [me]', {
      snippets: [
        { name: 'me', text: 'owner = [CAIRN_USER_EMAIL]' },
        { name: 'CAIRN_USER_EMAIL', text: 'oops' },
      ],
      context,
    });
    expect(r).toMatchObject({ text: `WHERE owner = ${ph(dialect, 1)}`, values: ['ada@example.com'], snippets: ['me'] });
    rejects(() => compile(dialect, "SELECT [CAIRN_USER_EMAIL('x')]"), /takes no arguments/);
  });

  it('an unknown name in the reserved CAIRN_ prefix is refused rather than left alone', () => {
    rejects(() => compile(dialect, 'SELECT [CAIRN_USER_MAIL]'), /\[CAIRN_USER_MAIL\] is not a built-in snippet/);
  });
});

describe('sqlReferences', () => {
  it('lists variables (through snippets), unknown ones, custom and built-in snippets', () => {
    const refs = sqlReferences(
      'SELECT {t:aggregation}, [revenue], {grain}, {nothing} FROM o WHERE [recent] AND {c=country} AND {d.start} < now() AND [CAIRN_USER_ROLE] AND [x]',
      { snippets, filters: [filter('country', 'dropdown'), filter('grain', 'date_time_aggregation')] },
    );
    expect(refs).toEqual({
      variables: ['aggregation', 'grain', 'timerange', 'country', 'd'],
      unknownVariables: ['d'],
      snippets: ['revenue', 'paid', 'recent'],
      builtInSnippets: ['CAIRN_USER_ROLE'],
    });
  });

  it('needs no values and does not validate them, but reports snippet cycles', () => {
    expect(sqlReferences('WHERE {x=qty} AND {y=qty.previous}').variables).toEqual(['qty']);
    rejects(() => sqlReferences('[a]', { snippets: [{ name: 'a', text: '[a]' }] }), /cycle/);
    expect(sqlReferences("SELECT '{x=y}' -- {z=w}", { dialect: 'mysql' }).variables).toEqual([]);
  });

  it('reads a snippet body with its own parameters (params), passing them on to the snippets it calls', () => {
    const body = "([above({{n}}, 'EUR')]) AND {c=country}";
    // Outside a snippet, {{n}} is no parameter, so passing it on is refused…
    rejects(() => sqlReferences(body, { snippets }), /not a parameter/);
    // …inside one that has n, it reads like the compiler would expand it.
    expect(sqlReferences(body, { snippets, params: ['n'] })).toMatchObject({ variables: ['country'], snippets: ['above'] });
    // Snippets given without their text are named but not followed.
    const shallow = snippets.map((s) => ({ ...s, text: '' }));
    expect(sqlReferences('[revenue] AND [wrap(1)]', { snippets: shallow }).snippets).toEqual(['revenue', 'wrap']);
  });
});
