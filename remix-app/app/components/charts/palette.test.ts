import { describe, expect, it } from 'vitest';
import { ColorMap, nameHash, paletteFor, rotatePalette, seriesColors } from './palette';

const scheme = paletteFor('scheme_6');

describe('series colours pinned by value', () => {
  it('a value keeps its colour whatever subset a filter leaves, in any order', () => {
    const map = new ColorMap(scheme.length);
    const all = seriesColors(map, scheme, ['Germany', 'France', 'Spain', 'Italy']);
    const filtered = seriesColors(map, scheme, ['France', 'Italy']);
    const alone = seriesColors(map, scheme, ['Italy']);
    expect(filtered.get('France')).toBe(all.get('France'));
    expect(filtered.get('Italy')).toBe(all.get('Italy'));
    expect(alone.get('Italy')).toBe(all.get('Italy'));
    // Not by position: the first series of the filtered chart is not simply the scheme's first colour for both.
    expect(new Set(all.values()).size).toBe(4);
  });

  it('the colour follows the name, so another chart, the editor or a fresh page agree on a value shown first', () => {
    for (const name of ['France', 'Revenue', 'Orders', '(none)']) {
      expect(new ColorMap(8).indexOf(name)).toBe(nameHash(name) % 8);
    }
    const editor = seriesColors(new ColorMap(8), scheme, ['France']);
    const dashboard = seriesColors(new ColorMap(8), scheme, ['France', 'Spain']);
    expect(editor.get('France')).toBe(dashboard.get('France'));
  });

  it('values in one chart never share a colour while the scheme has a free one; pins are not moved', () => {
    const map = new ColorMap(8);
    const names = Array.from({ length: 8 }, (_, i) => `Country ${i}`);
    const colours = seriesColors(map, scheme, names);
    expect(new Set(colours.values()).size).toBe(8);
    const again = seriesColors(map, scheme, [...names].reverse());
    for (const n of names) expect(again.get(n)).toBe(colours.get(n));
    // A ninth value must share; it still gets a colour of the scheme.
    expect(scheme).toContain(seriesColors(map, scheme, ['Country 8']).get('Country 8'));
  });

  it("a chart's color_start turns the scheme for that chart but keeps values apart", () => {
    const map = new ColorMap(8);
    const plain = seriesColors(map, scheme, ['A', 'B']);
    const turned = seriesColors(map, rotatePalette(scheme, 2), ['A', 'B']);
    const idx = (c: string | undefined) => scheme.indexOf(c!);
    expect((idx(turned.get('A')) - idx(plain.get('A')) + 8) % 8).toBe(2);
    expect(turned.get('A')).not.toBe(turned.get('B'));
  });
});

describe("a dashboard's stored colour map (series_colors)", () => {
  it('keeps the stored colours and gives new values the next ordinals, as the API does, reporting them once', () => {
    const seen: string[] = [];
    const map = new ColorMap(8).seed({ France: 0, Germany: 1, Spain: 9 });
    map.onNew = (n) => seen.push(n);
    expect(map.indexOf('Spain')).toBe(1); // ordinal 9, counted round the 8 colours
    expect(map.indexOf('Germany')).toBe(1);
    expect(map.indexOf('Italy')).toBe(10 % 8);
    expect(map.indexOf('Chile')).toBe(11 % 8);
    expect(map.indexOf('Italy')).toBe(2);
    expect(seen).toEqual(['Italy', 'Chile']);
    // Whatever order a chart lists them in, stored values keep their colour.
    const colors = seriesColors(map, scheme, ['Chile', 'France']);
    expect(colors.get('France')).toBe(scheme[0]);
    expect(colors.get('Chile')).toBe(scheme[3]);
  });
});
