/**
 * Map shapes and region matching. Shapes come from world-atlas (Natural Earth countries, 1:110m) and
 * us-atlas (US states), loaded only when a map is drawn. Regions are matched by ISO 3166-1 alpha-2,
 * alpha-3 or numeric code, by English name, or for US states by postal code, FIPS code or name — all
 * without regard to case.
 */
import type { Feature, FeatureCollection, Geometry } from 'geojson';

export interface Shapes {
  features: (Feature<Geometry, { name: string }> & { id: string })[];
  /** lower-cased code or name → feature id */
  lookup: Map<string, string>;
}

const US_STATES: [string, string][] = [
  ['AL', '01'],
  ['AK', '02'],
  ['AZ', '04'],
  ['AR', '05'],
  ['CA', '06'],
  ['CO', '08'],
  ['CT', '09'],
  ['DE', '10'],
  ['DC', '11'],
  ['FL', '12'],
  ['GA', '13'],
  ['HI', '15'],
  ['ID', '16'],
  ['IL', '17'],
  ['IN', '18'],
  ['IA', '19'],
  ['KS', '20'],
  ['KY', '21'],
  ['LA', '22'],
  ['ME', '23'],
  ['MD', '24'],
  ['MA', '25'],
  ['MI', '26'],
  ['MN', '27'],
  ['MS', '28'],
  ['MO', '29'],
  ['MT', '30'],
  ['NE', '31'],
  ['NV', '32'],
  ['NH', '33'],
  ['NJ', '34'],
  ['NM', '35'],
  ['NY', '36'],
  ['NC', '37'],
  ['ND', '38'],
  ['OH', '39'],
  ['OK', '40'],
  ['OR', '41'],
  ['PA', '42'],
  ['RI', '44'],
  ['SC', '45'],
  ['SD', '46'],
  ['TN', '47'],
  ['TX', '48'],
  ['UT', '49'],
  ['VT', '50'],
  ['VA', '51'],
  ['WA', '53'],
  ['WV', '54'],
  ['WI', '55'],
  ['WY', '56'],
  ['PR', '72'],
];

/** Common names the atlas writes differently. */
const NAME_ALIASES: [string, string][] = [
  ['united states', 'united states of america'],
  ['usa', 'united states of america'],
  ['uk', 'united kingdom'],
  ['czech republic', 'czechia'],
  ['russian federation', 'russia'],
  ['south korea', 'south korea'],
  ['bosnia and herzegovina', 'bosnia and herz.'],
  ['dominican republic', 'dominican rep.'],
  ['central african republic', 'central african rep.'],
  ['democratic republic of the congo', 'dem. rep. congo'],
  ['south sudan', 's. sudan'],
  ['ivory coast', "côte d'ivoire"],
  ['north macedonia', 'macedonia'],
  ['eswatini', 'eswatini'],
];

async function topoFeatures(kind: 'world' | 'us_states'): Promise<Shapes['features']> {
  const [{ feature }, topo] = await Promise.all([
    import('topojson-client'),
    kind === 'world' ? import('world-atlas/countries-110m.json') : import('us-atlas/states-10m.json'),
  ]);
  const topology = ((topo as { default?: unknown }).default ?? topo) as Parameters<typeof feature>[0];
  const object = (topology as { objects: Record<string, unknown> }).objects[kind === 'world' ? 'countries' : 'states'];
  const fc = feature(topology, object as never) as unknown as FeatureCollection<Geometry, { name: string }>;
  return fc.features
    .filter((f) => f.id !== undefined || f.properties?.name)
    .map((f) => ({ ...f, id: String(f.id ?? f.properties.name) })) as Shapes['features'];
}

const cache = new Map<string, Promise<Shapes>>();

export function loadShapes(kind: 'world' | 'us_states'): Promise<Shapes> {
  let p = cache.get(kind);
  if (!p) {
    p = (async () => {
      const features = await topoFeatures(kind);
      const lookup = new Map<string, string>();
      for (const f of features) {
        lookup.set(f.id.toLowerCase(), f.id);
        if (f.properties?.name) lookup.set(f.properties.name.toLowerCase(), f.id);
      }
      if (kind === 'world') {
        const codes = (await import('i18n-iso-countries/codes.json')) as unknown as { default?: string[][] } & string[][];
        for (const [a2, a3, numeric] of (codes.default ?? codes) as string[][]) {
          if (!lookup.has(numeric!)) continue;
          lookup.set(a2!.toLowerCase(), numeric!);
          lookup.set(a3!.toLowerCase(), numeric!);
        }
      } else {
        for (const [code, fips] of US_STATES) lookup.set(code.toLowerCase(), fips);
      }
      for (const [alias, name] of NAME_ALIASES) {
        const id = lookup.get(name);
        if (id && !lookup.has(alias)) lookup.set(alias, id);
      }
      return { features, lookup };
    })();
    cache.set(kind, p);
  }
  return p;
}

export function matchRegion(shapes: Shapes, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value).trim().toLowerCase();
  return shapes.lookup.get(s) ?? shapes.lookup.get(s.padStart(3, '0')) ?? null;
}

// ---- Mercator, as d3-geo's geoMercator computes it (rotation 0), to fit the view and place points.

const RAD = Math.PI / 180;
const MAX_LAT = 85;
function mercator(lon: number, lat: number): [number, number] {
  const φ = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * RAD;
  return [lon * RAD, -Math.log(Math.tan(Math.PI / 4 + φ / 2))];
}

export interface View {
  scale: number;
  /** projectionTranslation as nivo takes it: fractions of width and height. */
  translation: [number, number];
  project: (lon: number, lat: number) => [number, number];
}

/** The scale and translation that fit [lon, lat] points into width × height with some padding. */
export function fitView(points: [number, number][], width: number, height: number, pad = 0.08): View {
  const projected = points.filter(([lo, la]) => Number.isFinite(lo) && Number.isFinite(la)).map(([lo, la]) => mercator(lo, la));
  if (projected.length === 0) projected.push(mercator(-170, -58), mercator(190, 80));
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (const [x, y] of projected) {
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  }
  const dx = Math.max(x1 - x0, 0.05),
    dy = Math.max(y1 - y0, 0.05);
  const scale = Math.min((width * (1 - 2 * pad)) / dx, (height * (1 - 2 * pad)) / dy);
  const tx = width / 2 - (scale * (x0 + x1)) / 2;
  const ty = height / 2 - (scale * (y0 + y1)) / 2;
  return {
    scale,
    translation: [tx / width, ty / height],
    project: (lon, lat) => {
      const [x, y] = mercator(lon, lat);
      return [tx + scale * x, ty + scale * y];
    },
  };
}

/** Every [lon, lat] of a geometry (for fitting the view to the regions that have data). */
export function coordinates(g: Geometry | null): [number, number][] {
  if (!g) return [];
  const out: [number, number][] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') out.push([c[0] as number, c[1] as number]);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  if (g.type === 'GeometryCollection') g.geometries.forEach((x) => out.push(...coordinates(x)));
  else walk((g as { coordinates: unknown }).coordinates);
  return out;
}
