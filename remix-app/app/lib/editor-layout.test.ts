import { describe, expect, it } from 'vitest';
import {
  gridToTiles,
  layoutProblems,
  placeMissing,
  pushDownOverlaps,
  sameLayout,
  tileOfPointer,
  tilesToGrid,
  withoutLeadingGap,
  type Tile,
} from './editor-layout';

const tile = (id: string, row: number, column: number, width: number, height: number): Tile => ({ type: 'report', id, row, column, width, height });

describe('layout ↔ grid', () => {
  it('turns 1-based tiles into 0-based grid items and back', () => {
    const tiles = [tile('a', 1, 1, 4, 3), tile('b', 1, 5, 8, 3), tile('c', 4, 1, 12, 6)];
    const grid = tilesToGrid(tiles);
    expect(grid.map(({ i, x, y, w, h }) => ({ i, x, y, w, h }))).toEqual([
      { i: 'a', x: 0, y: 0, w: 4, h: 3 },
      { i: 'b', x: 4, y: 0, w: 8, h: 3 },
      { i: 'c', x: 0, y: 3, w: 12, h: 6 },
    ]);
    expect(grid[0]).toMatchObject({ minW: 1, minH: 1, maxW: 12 });
    expect(gridToTiles(grid)).toEqual(tiles);
  });

  it('narrows tiles that stick out, clamps odd values and drops repeated ids', () => {
    const grid = tilesToGrid([tile('a', 0, 10, 6, 0), tile('a', 5, 1, 1, 1), { ...tile('b', 2.4, 13, 3, 2) }]);
    expect(grid.map(({ i, x, y, w, h }) => ({ i, x, y, w, h }))).toEqual([
      { i: 'a', x: 9, y: 0, w: 3, h: 1 },
      { i: 'b', x: 11, y: 1, w: 1, h: 2 },
    ]);
  });

  it('sorts the tiles it sends in reading order and keeps them inside the 12 columns', () => {
    const tiles = gridToTiles([
      { i: 'late', x: 0, y: 5, w: 6, h: 2 },
      { i: 'right', x: 6, y: 0, w: 9, h: 2 },
      { i: 'left', x: 0, y: 0, w: 6, h: 2 },
    ]);
    expect(tiles.map((t) => t.id)).toEqual(['left', 'right', 'late']);
    expect(tiles[1]).toEqual(tile('right', 1, 7, 6, 2));
  });

  it('places reports missing from the layout below it, two per row', () => {
    const placed = placeMissing([tile('a', 1, 1, 12, 3), tile('gone', 9, 1, 2, 2)], ['a', 'n1', 'n2', 'n3']);
    expect(placed).toEqual([tile('a', 1, 1, 12, 3), tile('n1', 4, 1, 6, 4), tile('n2', 4, 7, 6, 4), tile('n3', 8, 1, 6, 4)]);
  });

  it('compares layouts regardless of order', () => {
    const a = [tile('a', 1, 1, 6, 2), tile('b', 1, 7, 6, 2)];
    expect(sameLayout(a, [...a].reverse())).toBe(true);
    expect(sameLayout(a, [tile('a', 1, 1, 6, 3), tile('b', 1, 7, 6, 2)])).toBe(false);
    expect(sameLayout(a, a.slice(1))).toBe(false);
  });

  it('finds overlaps (unless floating) and tiles outside the grid', () => {
    const overlapping = [tile('a', 1, 1, 6, 2), tile('b', 2, 5, 4, 2)];
    expect(layoutProblems(overlapping, false)).toEqual(['Tiles 1 and 2 overlap.']);
    expect(layoutProblems(overlapping, true)).toEqual([]);
    expect(layoutProblems([tile('a', 1, 10, 4, 2)], false)).toEqual(['Tile 1 sticks out on the right (column 10, width 4).']);
    expect(layoutProblems([tile('a', 1, 1, 6, 2), tile('b', 3, 1, 6, 2)], false)).toEqual([]);
  });

  it('moves the layout up to row 1 and maps error pointers to tiles', () => {
    expect(withoutLeadingGap([tile('a', 3, 1, 6, 2), tile('b', 5, 1, 6, 2)])).toEqual([tile('a', 1, 1, 6, 2), tile('b', 3, 1, 6, 2)]);
    const sent = [tile('a', 1, 1, 6, 2), tile('b', 1, 7, 6, 2)];
    expect(tileOfPointer('/layout/1/width', sent)).toBe('b');
    expect(tileOfPointer('/layout/7', sent)).toBeNull();
    expect(tileOfPointer('/floating_enabled', sent)).toBeNull();
  });

  it('pushes overlapped tiles down below the one the user moved, keeping it in place', () => {
    const items = [
      { i: 'a', x: 0, y: 0, w: 4, h: 4 },
      { i: 'b', x: 0, y: 3, w: 6, h: 3 },
      { i: 'c', x: 0, y: 6, w: 12, h: 2 },
      { i: 'd', x: 6, y: 0, w: 6, h: 2 },
    ];
    const out = pushDownOverlaps(items, 'a');
    expect(out.map(({ i, y }) => [i, y])).toEqual([
      ['a', 0],
      ['b', 4],
      ['c', 7],
      ['d', 0],
    ]);
    expect(layoutProblems(gridToTiles(out), false)).toEqual([]);
    // The dragged tile wins even when it lies below the one it lands on.
    const dragged = pushDownOverlaps(
      [
        { i: 'x', x: 0, y: 0, w: 6, h: 2 },
        { i: 'y', x: 2, y: 1, w: 6, h: 2 },
      ],
      'y',
    );
    expect(dragged).toEqual([
      { i: 'x', x: 0, y: 3, w: 6, h: 2 },
      { i: 'y', x: 2, y: 1, w: 6, h: 2 },
    ]);
  });
});
