import { describe, expect, it } from 'vitest';
import { customVariables, readReferences } from './references.ts';

/** How saving reads SQL (core's walker): which snippets a text calls and which variables it reaches. */
const snippets = [
  { name: 'paid', text: "status = 'paid' AND {c=country}", params: null },
  { name: 'above', text: 'total > {{min}} AND [paid]', params: ['min'] },
  { name: 'wrap', text: '[above({{n}})]', params: ['n'] },
];

describe('readReferences', () => {
  it('direct: the snippets the text itself calls; otherwise everything reached', () => {
    const sql = "SELECT * FROM o WHERE [wrap(5)] AND {d=region} AND '[paid]' = x -- [above(1)]";
    expect(readReferences(sql, snippets, { direct: true })).toEqual({ variables: ['region'], snippets: ['wrap'] });
    expect(readReferences(sql, snippets)).toEqual({ variables: ['country', 'region'], snippets: ['wrap', 'above', 'paid'] });
    expect(customVariables(['timerange', 'region', 'aggregation'])).toEqual(['region']);
  });

  it('reads a snippet body with its parameters, and unknown names are no snippets', () => {
    expect(readReferences('[above({{n}})] AND [nope]', snippets, { direct: true, params: ['n'] }).snippets).toEqual(['above']);
  });

  it('SQL the compiler refuses is read without following snippets, else refers to nothing', () => {
    const cyclic = [
      { name: 'a', text: '[b] {x=y}', params: null },
      { name: 'b', text: '[a]', params: null },
    ];
    expect(readReferences('[a] AND {v=w}', cyclic)).toEqual({ variables: ['w'], snippets: ['a'] });
    expect(readReferences('[above(1, 2)]', snippets)).toEqual({ variables: [], snippets: [] });
  });
});
