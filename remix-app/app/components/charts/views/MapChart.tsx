/**
 * Map: a region map (nivo choropleth over world countries or US states) or a point map (markers at
 * latitude/longitude over the world, sized by area). Shapes are loaded lazily; the view fits the data.
 */
import { Choropleth, GeoMap } from '@nivo/geo';
import { useEffect, useMemo, useState } from 'react';
import type { MapConfig } from '../config';
import { toNumber } from '../data';
import { columnLabel, formatCell, formatNumber } from '../format';
import { nivoTheme } from '../theme';
import { coordinates, fitView, loadShapes, matchRegion, type Shapes } from './geo';
import { idx, type ViewProps } from './types';
import { useSize } from './useWidth';

/** `a` blended towards `b` by t (0…1), as #rrggbb. */
export function blend(a: string, b: string, t: number): string {
  const p = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const [x, y] = [p(a), p(b)];
  return `#${x
    .map((v, i) =>
      Math.round(v + (y[i]! - v) * t)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** Colour steps from a light tint to the scheme's first colour. */
function steps(color: string, n: number, dark: boolean): string[] {
  return Array.from({ length: n }, (_, i) => blend(dark ? '#0f172a' : '#ffffff', color, 0.22 + (0.78 * i) / (n - 1)));
}

export default function MapChart({ config, roles, data, palette, mode, title }: ViewProps<MapConfig>) {
  const point = roles.point === 1;
  const regionSet = point ? 'world' : (config.region_set ?? 'world');
  const [shapes, setShapes] = useState<Shapes | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [ref, size] = useSize();
  useEffect(() => {
    let live = true;
    loadShapes(regionSet).then(
      (s) => live && setShapes(s),
      (e: unknown) => live && setFailed(String(e)),
    );
    return () => {
      live = false;
    };
  }, [regionSet]);
  const field = (i: number | undefined) => (i === undefined ? undefined : (data.fields.find((f) => f.idx === i) ?? data.fields[i]));
  const dark = mode === 'dark';
  const land = dark ? '#1e293b' : '#e6eaf0';
  const border = dark ? '#0b1120' : '#ffffff';
  const fmt = config.format ?? {};

  const regions = useMemo(() => {
    if (!shapes || point) return null;
    const r = idx(roles, 'region')!,
      v = idx(roles, 'value')!;
    const values = new Map<string, { value: number; label: string }>();
    const unknown: string[] = [];
    for (const row of data.rows) {
      const id = matchRegion(shapes, row[r]);
      const n = toNumber(row[v]);
      if (!id) {
        if (row[r] !== null && row[r] !== undefined) unknown.push(String(row[r]));
        continue;
      }
      if (n === null) continue;
      const prev = values.get(id);
      values.set(id, { value: (prev?.value ?? 0) + n, label: String(row[r]) });
    }
    return { data: [...values].map(([id, x]) => ({ id, value: x.value, label: x.label })), unknown };
  }, [shapes, data.rows, point, roles]);

  const points = useMemo(() => {
    if (!point) return null;
    const la = idx(roles, 'lat')!,
      lo = idx(roles, 'lng')!,
      s = idx(roles, 'size'),
      l = idx(roles, 'label');
    let skipped = 0;
    const list: { lat: number; lng: number; size: number; label: string }[] = [];
    for (const row of data.rows) {
      const lat = toNumber(row[la]),
        lng = toNumber(row[lo]);
      if (lat === null || lng === null || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
        skipped++;
        continue;
      }
      list.push({ lat, lng, size: s === undefined ? 1 : Math.abs(toNumber(row[s]) ?? 0), label: l === undefined ? '' : formatCell(row[l], field(l)) });
    }
    return { list, skipped };
  }, [data.rows, point, roles]);

  const width = size.width,
    height = size.height;
  const view = useMemo(() => {
    if (!shapes || !width || !height) return null;
    if (points)
      return fitView(
        points.list.map((p) => [p.lng, p.lat]),
        width,
        height,
        0.12,
      );
    const ids = new Set(regions?.data.map((d) => d.id));
    const coords = shapes.features.filter((f) => ids.has(f.id)).flatMap((f) => coordinates(f.geometry));
    return fitView(coords, width, height);
  }, [shapes, width, height, points, regions]);

  if (failed) return <p className="chart__note">The map shapes could not be loaded.</p>;
  const values = regions?.data.map((d) => d.value) ?? [];
  const domain: [number, number] = [Math.min(0, ...values), Math.max(1, ...values)];
  const maxSize = Math.max(1e-9, ...(points?.list.map((p) => p.size) ?? [1]));
  return (
    <div ref={ref} className="chart__measure map-view" role="img" aria-label={title}>
      {shapes && view && width > 0 && height > 0 ? (
        point ? (
          <GeoMap
            width={width}
            height={height}
            features={shapes.features}
            projectionScale={view.scale}
            projectionTranslation={view.translation}
            fillColor={land}
            borderWidth={0.6}
            borderColor={border}
            theme={nivoTheme(mode)}
            isInteractive={false}
            {...({
              layers: [
                'features',
                () => (
                  <g key="points" data-testid="map-points">
                    {points!.list.map((p, i) => {
                      const [x, y] = view.project(p.lng, p.lat);
                      const r = 4 + Math.sqrt(p.size / maxSize) * 18;
                      return (
                        <circle key={i} cx={x} cy={y} r={r} fill={palette[0]} fillOpacity={0.55} stroke={palette[0]} strokeWidth={1}>
                          <title>{`${p.label ? `${p.label}: ` : ''}${formatNumber(p.size, fmt)}`}</title>
                        </circle>
                      );
                    })}
                  </g>
                ),
              ],
            } as object)}
          />
        ) : (
          <Choropleth
            width={width}
            height={height}
            features={shapes.features}
            data={regions!.data}
            domain={domain}
            colors={steps(palette[0]!, 6, dark)}
            unknownColor={land}
            label="data.label"
            valueFormat={(v: number) => formatNumber(v, fmt)}
            projectionScale={view.scale}
            projectionTranslation={view.translation}
            borderWidth={0.6}
            borderColor={border}
            theme={nivoTheme(mode)}
            legends={
              [
                {
                  anchor: 'bottom-left',
                  direction: 'column',
                  translateX: 12,
                  translateY: -12,
                  itemWidth: 90,
                  itemHeight: 16,
                  itemsSpacing: 2,
                  symbolSize: 12,
                  itemTextColor: dark ? '#cbd5e1' : '#475569',
                },
              ] as never
            }
          />
        )
      ) : null}
      {regions?.unknown.length ? (
        <p className="chart__note map-view__note">
          Not recognised as {regionSet === 'world' ? 'countries' : 'US states'}: {regions.unknown.slice(0, 8).join(', ')}
          {regions.unknown.length > 8 ? ` and ${regions.unknown.length - 8} more` : ''}.
        </p>
      ) : null}
      {points?.skipped ? <p className="chart__note map-view__note">{points.skipped} rows without valid coordinates were skipped.</p> : null}
      <span className="visually-hidden">{columnLabel(field(idx(roles, 'value') ?? idx(roles, 'size')))}</span>
    </div>
  );
}
