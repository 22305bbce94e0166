/**
 * The dashboard layout (1-based rows and columns on a 12-column grid, as the API keeps it) and the grid
 * library's items (0-based x/y, w/h) converted both ways, plus the checks the editor makes before it
 * sends a layout (the API checks again and its errors are shown).
 */
const GRID_COLUMNS = 12;
/** Tile heights the editor allows (the API's report limit). */
const MAX_TILE_HEIGHT = 100;

export interface Tile {
  type: 'report';
  id: string;
  row: number;
  column: number;
  width: number;
  height: number;
}

/** react-grid-layout's item. */
export interface GridItem {
  i: string;
  x: number;
  y: number;
  w: number;
  h: number;
  minW?: number;
  minH?: number;
  maxW?: number;
  maxH?: number;
}

const int = (n: unknown, min: number, max: number, fallback: number) =>
  typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;

/** Tiles → grid items; tiles that stick out on the right are narrowed to fit (as the dashboard draws them). */
export function tilesToGrid(tiles: readonly Tile[]): GridItem[] {
  const seen = new Set<string>();
  const out: GridItem[] = [];
  for (const t of tiles) {
    if (seen.has(t.id)) continue;
    seen.add(t.id);
    const column = int(t.column, 1, GRID_COLUMNS, 1);
    const width = Math.min(int(t.width, 1, GRID_COLUMNS, 6), GRID_COLUMNS - column + 1);
    out.push({
      i: t.id,
      x: column - 1,
      y: int(t.row, 1, 1_000_000, 1) - 1,
      w: width,
      h: int(t.height, 1, MAX_TILE_HEIGHT, 4),
      minW: 1,
      minH: 1,
      maxW: GRID_COLUMNS,
      maxH: MAX_TILE_HEIGHT,
    });
  }
  return out;
}

/** Grid items → the layout call's tiles, in reading order (by row, then column). */
export function gridToTiles(items: readonly Pick<GridItem, 'i' | 'x' | 'y' | 'w' | 'h'>[]): Tile[] {
  return items
    .map((it) => ({
      type: 'report' as const,
      id: it.i,
      row: Math.max(0, Math.round(it.y)) + 1,
      column: Math.min(GRID_COLUMNS, Math.max(0, Math.round(it.x)) + 1),
      width: Math.max(1, Math.round(it.w)),
      height: Math.max(1, Math.round(it.h)),
    }))
    .map((t) => ({ ...t, width: Math.min(t.width, GRID_COLUMNS - t.column + 1) }))
    .sort((a, b) => a.row - b.row || a.column - b.column);
}

/**
 * Reports the layout does not place (new ones, or left out by a program) go below the placed tiles,
 * two per row, so the editor shows every report of the dashboard.
 */
export function placeMissing(tiles: readonly Tile[], reportIds: readonly string[]): Tile[] {
  const known = new Set(reportIds);
  const placed = tiles.filter((t) => known.has(t.id));
  const ids = new Set(placed.map((t) => t.id));
  let row = placed.reduce((m, t) => Math.max(m, t.row + t.height), 1);
  const out = [...placed];
  let left = true;
  for (const id of reportIds) {
    if (ids.has(id)) continue;
    out.push({ type: 'report', id, row, column: left ? 1 : 7, width: 6, height: 4 });
    if (!left) row += 4;
    left = !left;
  }
  return out;
}

/** Whether two layouts place the same reports at the same places (order does not matter). */
export function sameLayout(a: readonly Tile[], b: readonly Tile[]): boolean {
  if (a.length !== b.length) return false;
  const key = (t: Tile) => `${t.id}:${t.row}:${t.column}:${t.width}:${t.height}`;
  const left = new Set(a.map(key));
  return b.every((t) => left.has(key(t)));
}

/** Problems the API would refuse, found before sending (overlaps only matter without floating). */
export function layoutProblems(tiles: readonly Tile[], floating: boolean): string[] {
  const problems: string[] = [];
  tiles.forEach((t, i) => {
    if (t.column < 1 || t.column > GRID_COLUMNS) problems.push(`Tile ${i + 1} starts outside the 12 columns.`);
    if (t.column + t.width - 1 > GRID_COLUMNS) problems.push(`Tile ${i + 1} sticks out on the right (column ${t.column}, width ${t.width}).`);
    if (t.row < 1 || t.height < 1) problems.push(`Tile ${i + 1} has no height.`);
  });
  if (!floating) {
    for (let i = 0; i < tiles.length; i++) {
      for (let j = 0; j < i; j++) {
        if (overlap(tiles[i]!, tiles[j]!)) problems.push(`Tiles ${j + 1} and ${i + 1} overlap.`);
      }
    }
  }
  return problems;
}

function overlap(a: Tile, b: Tile): boolean {
  return !(a.column + a.width <= b.column || b.column + b.width <= a.column || a.row + a.height <= b.row || b.row + b.height <= a.row);
}

/** Moves every tile up so the topmost one starts in row 1 (floating layouts close gaps this way too). */
export function withoutLeadingGap(tiles: readonly Tile[]): Tile[] {
  if (tiles.length === 0) return [];
  const top = Math.min(...tiles.map((t) => t.row));
  return top <= 1 ? [...tiles] : tiles.map((t) => ({ ...t, row: t.row - top + 1 }));
}

/**
 * Maps the API's layout error pointers (`/layout/3/width`) to the report of that tile, so the message
 * can be shown on the tile.
 */
export function tileOfPointer(pointer: string | undefined, sent: readonly Tile[]): string | null {
  const m = pointer ? /^\/layout\/(\d+)/.exec(pointer) : null;
  if (!m) return null;
  return sent[Number(m[1])]?.id ?? null;
}

type Box = { i: string; x: number; y: number; w: number; h: number };
const collide = (a: Box, b: Box) => a.i !== b.i && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Without floating the grid does not compact, so a tile dragged or grown onto others must push them
 * down: the tile the user moved keeps its place, the others (top to bottom) move just below whatever
 * they would overlap.
 */
export function pushDownOverlaps<T extends Box>(items: readonly T[], first?: string | null): T[] {
  const order = [...items].sort((a, b) => (a.i === first ? -1 : b.i === first ? 1 : a.y - b.y || a.x - b.x));
  const placed: T[] = [];
  for (const item of order) {
    const cur = { ...item };
    for (let hit = placed.find((p) => collide(p, cur)); hit; hit = placed.find((p) => collide(p, cur))) cur.y = hit.y + hit.h;
    placed.push(cur);
  }
  const byId = new Map(placed.map((p) => [p.i, p]));
  return items.map((it) => byId.get(it.i)!);
}
