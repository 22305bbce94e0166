/**
 * Word cloud: d3-cloud lays the words out (spiral placement, collision against what is placed), the
 * SVG is ours. Words that do not fit are left out, never overlapped.
 */
import cloud from 'd3-cloud';
import { useEffect, useMemo, useState } from 'react';
import type { WordCloudConfig } from '../config';
import { toNumber } from '../data';
import { formatCell, formatNumber } from '../format';
import { idx, type ViewProps } from './types';
import { useSize } from './useWidth';

interface Placed {
  text: string;
  size: number;
  x: number;
  y: number;
  rotate: number;
  weight: number;
  color: string;
}

/** Font size by weight: linear or square root between the smallest and largest size. */
export function fontSize(weight: number, min: number, max: number, range: [number, number], scale: 'linear' | 'sqrt'): number {
  if (max <= min) return (range[0] + range[1]) / 2;
  const f = scale === 'sqrt' ? (Math.sqrt(weight) - Math.sqrt(min)) / (Math.sqrt(max) - Math.sqrt(min)) : (weight - min) / (max - min);
  return range[0] + f * (range[1] - range[0]);
}

export default function WordCloudChart({ config, roles, data, palette, title }: ViewProps<WordCloudConfig>) {
  const w = idx(roles, 'word')!,
    wt = idx(roles, 'weight')!;
  const field = data.fields.find((f) => f.idx === w) ?? data.fields[w];
  const [ref, size] = useSize();
  const [placed, setPlaced] = useState<Placed[] | null>(null);
  const words = useMemo(() => {
    const list = data.rows
      .map((r) => ({ text: formatCell(r[w], field), weight: toNumber(r[wt]) ?? 0 }))
      .filter((x) => x.text && x.weight > 0)
      .sort((a, b) => b.weight - a.weight)
      .slice(0, config.max_words ?? 100);
    return list;
  }, [data.rows, w, wt, config.max_words]);
  useEffect(() => {
    if (!size.width || !size.height || words.length === 0) return;
    const min = words[words.length - 1]!.weight,
      max = words[0]!.weight;
    const range: [number, number] = [config.min_font ?? 12, config.max_font ?? Math.max(24, Math.min(64, size.height / 4))];
    const rotation = config.rotation ?? 'hv';
    let live = true;
    const layout = cloud<{ text: string; size: number; w: number; rank: number }>()
      .size([size.width, size.height])
      .words(words.map((x, rank) => ({ text: x.text, w: x.weight, rank, size: fontSize(x.weight, min, max, range, config.scale ?? 'sqrt') })))
      .padding(2)
      .rotate((d) => (rotation === 'none' ? 0 : rotation === 'hv' ? (d.rank % 5 === 4 ? 90 : 0) : (((d.rank * 37) % 5) - 2) * 30))
      .font('Inter, system-ui, sans-serif')
      .fontWeight('600')
      .fontSize((d) => d.size)
      .random(() => 0.5)
      .on('end', (out) => {
        if (!live) return;
        setPlaced(
          (out as (cloud.Word & { w: number; rank: number })[]).map((d) => ({
            text: d.text!,
            size: d.size!,
            x: d.x!,
            y: d.y!,
            rotate: d.rotate ?? 0,
            weight: d.w,
            color: palette[d.rank % palette.length]!,
          })),
        );
      });
    layout.start();
    return () => {
      live = false;
      layout.stop();
    };
  }, [words, size.width, size.height, config.min_font, config.max_font, config.rotation, config.scale, palette]);
  return (
    <div ref={ref} className="chart__measure word-cloud">
      {placed && size.width ? (
        <svg width={size.width} height={size.height} role="img" aria-label={title} data-words={placed.length}>
          <g transform={`translate(${size.width / 2},${size.height / 2})`}>
            {placed.map((p) => (
              <text
                key={p.text}
                textAnchor="middle"
                transform={`translate(${p.x},${p.y}) rotate(${p.rotate})`}
                style={{ fontSize: p.size, fontWeight: 600, fontFamily: 'Inter, system-ui, sans-serif', fill: p.color }}
              >
                <title>{`${p.text}: ${formatNumber(p.weight, config.format)}`}</title>
                {p.text}
              </text>
            ))}
          </g>
        </svg>
      ) : null}
    </div>
  );
}
