import { describe, expect, it } from 'vitest';
import { completeAt, dialectFor, editorVariables, schemaNamespace, snippetCall, variableSnippet, type SchemaData } from './editor-completion';

const schema: SchemaData = {
  schemas: [
    {
      name: 'sample_shop',
      tables: [
        {
          name: 'orders',
          row_count: 10,
          columns: [
            { name: 'id', db_type: 'integer', data_type: 'Integer' },
            { name: 'country', db_type: 'text', data_type: 'String' },
          ],
        },
        { name: 'customers', columns: [{ name: 'email', db_type: 'text', data_type: 'String' }] },
      ],
    },
    { name: 'public', tables: [{ name: 'orders', columns: [{ name: 'legacy', data_type: 'String' }] }] },
  ],
};

const variables = editorVariables([
  { variable_name: 'country', display_name: 'Country', control_type: 'dropdown_multi' },
  { variable_name: 'order_date', display_name: null, control_type: 'date_range' },
  { variable_name: 'period', control_type: 'date_time_aggregation' },
]);
const snippets = [
  { name: 'completed_orders', params: [] },
  { name: 'large_order', params: ['min_total_eur'], description: 'big ones' },
];

describe('schema namespace', () => {
  it('nests schema → table → columns with their types, and lifts the default schema’s tables to the top', () => {
    const ns = schemaNamespace(schema, 'sample_shop');
    expect(Object.keys(ns.sample_shop as object)).toEqual(['orders', 'customers']);
    expect((ns.sample_shop as Record<string, unknown>).orders).toEqual([
      { label: 'id', type: 'property', detail: 'Integer · integer' },
      { label: 'country', type: 'property', detail: 'String · text' },
    ]);
    // customers only exists in sample_shop: reachable without the schema name.
    expect(ns.customers).toEqual([{ label: 'email', type: 'property', detail: 'String · text' }]);
    // A top-level name that is already taken (a schema) is not overwritten.
    expect(Object.keys(ns)).toContain('public');
  });

  it('uses the only schema as default and is empty without a schema', () => {
    expect(schemaNamespace(null, null)).toEqual({});
    const one = schemaNamespace({ schemas: [schema.schemas[1]!] }, null);
    expect(one.orders).toEqual([{ label: 'legacy', type: 'property', detail: 'String' }]);
  });
});

describe('variables and snippets to insert', () => {
  it('lists the dashboard’s filters and the built-ins they do not redefine', () => {
    expect(variables.map((v) => v.name)).toEqual(['country', 'order_date', 'period', 'timerange', 'aggregation']);
    expect(variables.find((v) => v.name === 'period')!.aggregation).toBe(true);
    expect(variables.find((v) => v.name === 'order_date')!.range).toBe(true);
    const redefined = editorVariables([{ variable_name: 'timerange', control_type: 'date_time_range' }]);
    expect(redefined.filter((v) => v.name === 'timerange')).toHaveLength(1);
  });

  it('inserts conditions for filters and transformations for aggregations', () => {
    expect(variableSnippet(variables[0]!, 'o.country')).toBe('{[o.country]=country}');
    expect(variableSnippet(variables.find((v) => v.name === 'aggregation')!, 'o.ordered_at')).toBe('{[o.ordered_at]:aggregation}');
    expect(snippetCall(snippets[0]!)).toBe('[completed_orders]');
    expect(snippetCall(snippets[1]!)).toBe("[large_order('min_total_eur')]");
  });
});

describe('completion at the cursor', () => {
  it('offers condition variables after = inside braces, from the typed prefix', () => {
    const line = 'WHERE {[o.country]=cou';
    const answer = completeAt(line, variables, snippets)!;
    expect(answer.from).toBe(line.length - 3);
    expect(answer.options.map((o) => o.label)).toEqual(['country', 'order_date', 'timerange']);
    expect(answer.options[0]!.detail).toBe('Country · dropdown_multi');
    expect(completeAt('AND {country=', variables, snippets)!.options.map((o) => o.label)).toContain('country');
  });

  it('offers aggregation variables after a colon, and range selectors after a dot', () => {
    const agg = completeAt('SELECT {[o.ordered_at]:', variables, snippets)!;
    expect(agg.options.map((o) => o.label)).toEqual(['period', 'aggregation']);
    const sel = completeAt('{[o.ordered_at]=order_date.', variables, snippets)!;
    expect(sel.options.map((o) => o.label)).toEqual(['order_date.previous', 'order_date.next']);
    expect(completeAt('{[x]=country.', variables, snippets)).toBeNull();
  });

  it('offers value forms right after an opening brace', () => {
    const answer = completeAt('WHERE d >= {order', variables, snippets)!;
    const labels = answer.options.map((o) => o.label);
    expect(labels).toContain('order_date.start');
    expect(labels).toContain('order_date.end');
    expect(labels).toContain('country.value');
    expect(labels).toContain('aggregation');
  });

  it('stays quiet inside a filter expression and after a closed brace', () => {
    expect(completeAt('{[o.coun', variables, snippets)).toBeNull();
    expect(completeAt('{[o.country]=country} AND x', variables, snippets)).toBeNull();
  });

  it('offers snippets, with parameters and the built-ins, after an opening bracket', () => {
    const answer = completeAt('FROM ([comp', variables, snippets)!;
    expect(answer.from).toBe('FROM (['.length);
    const labels = answer.options.map((o) => o.label);
    expect(labels.slice(0, 2)).toEqual(['completed_orders', 'large_order']);
    expect(labels).toContain('CAIRN_USER_EMAIL');
    expect(answer.options[1]!.apply).toBe("large_order('min_total_eur')");
    expect(answer.options[1]!.detail).toBe('(min_total_eur)');
    // Array subscripts and SQL Server identifiers with other characters are left alone.
    expect(completeAt('tags[1', variables, snippets)).toBeNull();
    expect(completeAt('[dbo].[ord', variables, snippets)).not.toBeNull();
    expect(completeAt('[dbo.', variables, snippets)).toBeNull();
  });
});

describe('dialects', () => {
  it('maps database types to lang-sql dialects', () => {
    expect(dialectFor('postgres')).toBe('PostgreSQL');
    expect(dialectFor('redshift')).toBe('PostgreSQL');
    expect(dialectFor('mysql')).toBe('MySQL');
    expect(dialectFor('mariadb')).toBe('MariaSQL');
    expect(dialectFor('mssql')).toBe('MSSQL');
    expect(dialectFor('oracle')).toBe('PLSQL');
    expect(dialectFor('bigquery')).toBe('StandardSQL');
    expect(dialectFor(null)).toBe('StandardSQL');
  });
});
