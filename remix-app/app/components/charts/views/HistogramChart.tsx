/** Histogram: bins computed here from the raw values, drawn as touching bars (one colour per series). */
import { ResponsiveBar } from '@nivo/bar';
import { useMemo } from 'react';
import type { HistogramConfig } from '../config';
import { binValues, histogram } from '../data';
import { columnLabel, formatCompact, formatNumber, columnZone, isDateType, wallClock } from '../format';
import { ChartTooltip, seriesTooltipRows } from '../tooltip';
import { legendFor, nivoTheme, thinTicks, withAxisTitles } from '../theme';
import { idx, type ViewProps } from './types';
import { useSize } from './useWidth';

export default function HistogramChart({ config, roles, data, colors, mode, title, zone }: ViewProps<HistogramConfig>) {
  const v = idx(roles, 'value')!;
  const s = idx(roles, 'series');
  const field = data.fields.find((f) => f.idx === v) ?? data.fields[v];
  const dates = isDateType(field);
  const [ref, size] = useSize();
  const h = useMemo(
    () => histogram(data.rows, v, s, { bins: config.bins, binWidth: config.bin_width, min: config.min, max: config.max }),
    [data.rows, v, s, config.bins, config.bin_width, config.min, config.max],
  );
  const fmt = config.format ?? {};
  const edgeZone = useMemo(() => columnZone(data.rows, v, field, zone), [data.rows, v, field, zone]);
  const edge = (n: number) => (dates ? wallClock(new Date(n), edgeZone, false).slice(0, 10) : formatCompact(n, fmt));
  const show = config.show ?? 'count';
  const values = binValues(h, show);
  const bars = h.bins.map((b, i) => {
    const datum: Record<string, string | number> = {
      __bin: `${b.openStart ? '≤ ' : ''}${edge(b.start)}–${b.openEnd ? '≥ ' : ''}${edge(b.end)}\u200b${i}`,
    };
    h.series.forEach((name, si) => {
      datum[name] = values[i]![si]!;
    });
    return datum;
  });
  const colorOf = colors(h.series);
  const labels = bars.map((b) => b.__bin as string);
  const maxTicks = Math.max(2, Math.floor((size.width || 800) / 90));
  const legend = legendFor(config.legend, h.series.length > 1 ? h.series.length : 0);
  const valueFmt = show === 'count' ? { decimals: 0 } : { decimals: 1, suffix: ' %' };
  const axes = withAxisTitles({ top: 12, right: 16, bottom: 44, left: 56, ...legend.margin }, legend.legends, config.x_title, config.y_title);
  return (
    <div ref={ref} className="chart__measure" data-bins={h.bins.length}>
      <ResponsiveBar
        data={bars}
        keys={h.series}
        indexBy="__bin"
        groupMode={h.series.length > 1 ? 'grouped' : 'stacked'}
        padding={0.04}
        margin={axes.margin}
        colors={(d) => colorOf.get(String(d.id))!}
        enableLabel={false}
        animate={false}
        theme={nivoTheme(mode)}
        valueFormat={(x) => formatNumber(Number(x), valueFmt)}
        axisBottom={{
          tickSize: 0,
          tickPadding: 8,
          tickValues: thinTicks(labels, maxTicks),
          format: (x) => String(x).split('\u200b')[0]!.split('–')[0]!,
          ...axes.bottom,
        }}
        axisLeft={{ tickSize: 0, tickPadding: 8, tickValues: 5, format: (x) => formatCompact(Number(x), valueFmt), ...axes.left }}
        gridYValues={5}
        tooltip={(d) => (
          <ChartTooltip
            rows={seriesTooltipRows({
              x: { column: columnLabel(field), value: String(d.indexValue).split('\u200b')[0]! },
              series: s === undefined ? undefined : { column: columnLabel(data.fields.find((f) => f.idx === s) ?? data.fields[s]), value: String(d.id) },
              measure: {
                column: show === 'count' ? 'Count' : show === 'percent' ? 'Share of values' : 'Cumulative share',
                value: formatNumber(Number(d.value), valueFmt),
              },
              color: d.color,
            })}
          />
        )}
        legends={axes.legends.map((l) => ({ ...l, dataFrom: 'keys' as const }))}
        role="img"
        ariaLabel={`${title}: distribution of ${columnLabel(field)}`}
      />
      {h.skipped ? (
        <p className="chart__note">
          {h.skipped} empty {h.skipped === 1 ? 'value was' : 'values were'} left out.
        </p>
      ) : null}
    </div>
  );
}
