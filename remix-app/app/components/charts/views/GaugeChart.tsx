/** One value on a half-circle scale from minimum to maximum, with bands and a target marker (nivo radial bar). */
import { ResponsiveRadialBar } from '@nivo/radial-bar';
import type { GaugeConfig } from '../config';
import { toNumber } from '../data';
import { formatNumber } from '../format';
import { nivoTheme } from '../theme';
import { idx, type ViewProps } from './types';

function bound(spec: string | number | undefined, index: number | undefined, row: unknown[], fallback: number): number {
  if (typeof spec === 'number') return spec;
  if (index !== undefined) return toNumber(row[index] as never) ?? fallback;
  return fallback;
}

/** Met a target: green; missed it: red. */
export const TARGET_COLORS = { met: '#16a34a', missed: '#dc2626' } as const;

/**
 * The arc's colour: the band the value falls in (bands first); else, with a target, green when the
 * value reaches it and red when not — "reaches" meaning at most the target when lower is better;
 * else the palette's first colour.
 */
export function gaugeColor(value: number, target: number | null, bands: GaugeConfig['bands'], downIsGood: boolean, palette: readonly string[]): string {
  if (bands?.length) {
    const hit = bands.find((b) => value <= b.to) ?? bands[bands.length - 1]!;
    return hit.color ?? palette[bands.indexOf(hit) % palette.length]!;
  }
  if (target !== null) return (downIsGood ? value <= target : value >= target) ? TARGET_COLORS.met : TARGET_COLORS.missed;
  return palette[0]!;
}

export default function GaugeChart({ config, roles, data, palette, mode, title }: ViewProps<GaugeConfig>) {
  const row = data.rows[0] ?? [];
  const given = toNumber(row[idx(roles, 'value')!]);
  if (given === null) {
    // No row or a NULL value: an empty gauge that says so, not a needle at 0 (or "0.0 %").
    return (
      <div className="gauge gauge--empty" style={{ justifyContent: 'center' }} role="img" aria-label={`${title}: no data`}>
        <div className="gauge__value">
          <span data-testid="gauge-value" data-empty="true" style={{ color: 'var(--text-3)', fontSize: '0.7em', fontWeight: 600 }}>
            No data
          </span>
        </div>
      </div>
    );
  }
  const value = given;
  const min = bound(config.min, idx(roles, 'min'), row, 0);
  const autoMax = value <= 0 ? 1 : 10 ** Math.ceil(Math.log10(value * 1.05));
  const max = Math.max(min + 1e-9, bound(config.max, idx(roles, 'max'), row, autoMax));
  const targetIndex = idx(roles, 'target');
  const target = typeof config.target === 'number' ? config.target : targetIndex !== undefined ? toNumber(row[targetIndex]) : null;
  const clamped = Math.max(min, Math.min(max, value));
  const span = max - min;
  const bandColor = gaugeColor(value, target, config.bands, Boolean(config.down_is_good), palette);
  const fmt = config.format ?? {};
  const chartData = [
    {
      id: 'gauge',
      data: [
        { x: 'value', y: clamped - min },
        { x: 'rest', y: max - clamped },
      ],
    },
  ];
  const targetAngle = target === null ? null : -90 + ((Math.max(min, Math.min(max, target)) - min) / span) * 180;
  return (
    <div className="gauge" role="img" aria-label={`${title}: ${formatNumber(value, fmt)}`}>
      <div className="gauge__arc">
        <ResponsiveRadialBar
          data={chartData}
          startAngle={-90}
          endAngle={90}
          innerRadius={0.68}
          padding={0}
          cornerRadius={3}
          valueFormat={(v) => formatNumber(v + min, fmt)}
          colors={(d) => (d.data.x === 'value' ? bandColor : mode === 'dark' ? '#1e293b' : '#e9edf4')}
          enableRadialGrid={false}
          enableCircularGrid={false}
          radialAxisStart={null}
          circularAxisOuter={null}
          isInteractive={false}
          animate={false}
          theme={nivoTheme(mode)}
          margin={{ top: 8, right: 8, bottom: 8, left: 8 }}
          layers={[
            'bars',
            ({ center, outerRadius }: { center: [number, number]; outerRadius: number }) =>
              targetAngle === null ? null : (
                <g transform={`translate(${center[0]},${center[1]}) rotate(${targetAngle})`} data-testid="gauge-target">
                  <line x1={0} x2={0} y1={-outerRadius * 0.62} y2={-outerRadius - 4} stroke={mode === 'dark' ? '#e2e8f0' : '#0f172a'} strokeWidth={2.5} />
                </g>
              ),
          ]}
        />
      </div>
      <div className="gauge__value">
        <span data-testid="gauge-value">{formatNumber(value, fmt)}</span>
        {target !== null ? <span className="gauge__target">target {formatNumber(target, fmt)}</span> : null}
      </div>
      <div className="gauge__scale">
        <span>{formatNumber(min, fmt)}</span>
        <span>{formatNumber(max, fmt)}</span>
      </div>
    </div>
  );
}
