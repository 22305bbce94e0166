/** Pie or donut: slices in row order, small ones grouped into "Other", labels as names, values or percentages. */
import { ResponsivePie } from '@nivo/pie';
import { useLayoutEffect, type RefObject } from 'react';
import type { Cell } from '../../../lib/types';
import type { PieConfig } from '../config';
import { toNumber } from '../data';
import { columnLabel, columnZone, formatCell, formatCompact, formatNumber, truncate } from '../format';
import { nivoTheme, pieLegend } from '../theme';
import { ChartTooltip } from '../tooltip';
import { idx, type ViewProps } from './types';
import { useSize } from './useWidth';

/**
 * Names the chart's `<svg role="img">` (nivo's pie takes a role but no label, and an image without a
 * name fails WCAG 1.1.1: axe's and Lighthouse's svg-img-alt). The pie draws its svg once it has measured
 * its box, a commit after this view's own, so the name is set whenever an svg appears below `ref`.
 */
function useSvgName(ref: RefObject<HTMLElement | null>, label: string) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const name = () => {
      for (const svg of el.querySelectorAll('svg[role="img"]')) if (svg.getAttribute('aria-label') !== label) svg.setAttribute('aria-label', label);
    };
    name();
    if (typeof MutationObserver === 'undefined') return;
    const observer = new MutationObserver(name);
    observer.observe(el, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [ref, label]);
}

export default function PieChart({ config, roles, data, palette, colors, mode, title, zone, onDrill }: ViewProps<PieConfig>) {
  const l = idx(roles, 'label')!,
    v = idx(roles, 'value')!;
  const field = (i: number) => data.fields.find((f) => f.idx === i) ?? data.fields[i];
  const [ref, size] = useSize();
  useSvgName(ref, title);
  const labelZone = columnZone(data.rows, l, field(l), zone);
  const slices = data.rows
    .map((r) => ({ label: formatCell(r[l], field(l), undefined, labelZone) || '—', value: toNumber(r[v]) ?? 0, row: r as Cell[] | null }))
    .filter((s) => s.value > 0);
  const max = Math.max(2, config.max_slices ?? palette.length);
  const top = slices.length > max ? [...slices].sort((a, b) => b.value - a.value).slice(0, max - 1) : slices;
  if (slices.length > max) {
    const kept = new Set(top);
    const rest = slices.filter((s) => !kept.has(s));
    top.push({ label: `Other (${rest.length})`, value: rest.reduce((s, x) => s + x.value, 0), row: null });
  }
  const total = top.reduce((s, x) => s + x.value, 0);
  const colorOf = colors(top.map((s) => s.label));
  const pieData = top.map((s, i) => ({ id: `${i}:${s.label}`, label: s.label, value: s.value, color: colorOf.get(s.label)! }));
  const fmt = config.format ?? {};
  const labels = config.slice_labels ?? 'percent';
  const legend = pieLegend(
    config.legend,
    size.width || 600,
    pieData.map((d) => ({ id: d.id, label: truncate(d.label, 18), color: d.color })),
  );
  return (
    <div ref={ref} className="chart__measure">
      <ResponsivePie
        data={pieData}
        margin={legend.margin}
        innerRadius={config.donut === false ? 0 : 0.56}
        padAngle={1}
        cornerRadius={3}
        activeOuterRadiusOffset={6}
        colors={{ datum: 'data.color' }}
        enableArcLinkLabels={false}
        enableArcLabels={labels !== 'none'}
        arcLabelsSkipAngle={16}
        arcLabel={(d) =>
          labels === 'value' ? formatCompact(d.value, fmt) : labels === 'name' ? truncate(String(d.label), 10) : `${Math.round((d.value / total) * 100)}%`
        }
        arcLabelsTextColor="#ffffff"
        valueFormat={(x) => `${formatNumber(x, fmt)} (${formatNumber((x / total) * 100, { decimals: 1 })} %)`}
        animate={false}
        theme={nivoTheme(mode)}
        tooltip={({ datum }) => (
          <ChartTooltip
            rows={[
              { name: columnLabel(field(l)), value: String(datum.label), color: datum.color },
              { name: columnLabel(field(v)), value: datum.formattedValue },
            ]}
          />
        )}
        legends={legend.legends}
        onClick={
          onDrill
            ? (d) => {
                // "Other" stands for several rows: it does not drill.
                const row = top[Number(String(d.id).split(':')[0])]?.row;
                if (row) onDrill(row);
              }
            : undefined
        }
        role="img"
      />
      <span className="visually-hidden">
        {title}: {pieData.map((d) => `${d.label} ${formatNumber(d.value, fmt)}`).join(', ')} ({columnLabel(field(v))})
      </span>
    </div>
  );
}
