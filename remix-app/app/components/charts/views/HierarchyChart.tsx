/**
 * Hierarchy: treemap, sunburst, packed circles or partition (nivo). Clicking a node with children
 * zooms into it; the breadcrumb goes back up.
 */
import { ResponsiveCirclePacking } from '@nivo/circle-packing';
import { ResponsiveIcicle } from '@nivo/icicle';
import { ResponsiveSunburst } from '@nivo/sunburst';
import { ResponsiveTreeMap } from '@nivo/treemap';
import { useMemo, useState } from 'react';
import type { HierarchyConfig } from '../config';
import { toTree, type TreeNode } from '../data';
import { columnLabel, formatCompact, formatNumber } from '../format';
import { ChartTooltip, pathTooltipRows } from '../tooltip';
import { fitLabel, nivoTheme } from '../theme';
import { idx, idxList, type ViewProps } from './types';

function find(node: TreeNode, id: string, trail: TreeNode[] = []): TreeNode[] | null {
  if (node.id === id) return [...trail, node];
  for (const c of node.children ?? []) {
    const hit = find(c, id, [...trail, node]);
    if (hit) return hit;
  }
  return null;
}

/** A treemap cell's label: "name · value" when it fits, else the name alone, shortened or left out to fit. */
export function treemapLabel(name: string, value: string, width: number, height: number): string {
  const full = `${name} · ${value}`;
  const fitted = fitLabel(full, width, height);
  return fitted === full ? full : fitLabel(name, width, height);
}

export default function HierarchyChart({ config, roles, data, palette, colors, mode, title }: ViewProps<HierarchyConfig>) {
  const levels = idxList(roles, 'levels');
  const value = idx(roles, 'value')!;
  const tree = useMemo(() => toTree(data.rows, levels, value, title), [data.rows, levels.join(), value, title]);
  const [focus, setFocus] = useState('root');
  const trail = find(tree, focus) ?? [tree];
  const node = trail[trail.length - 1]!;
  const layout = config.layout ?? 'treemap';
  const fmt = config.format ?? {};
  const theme = nivoTheme(mode);
  const colorBy = config.color_by === 'depth' ? 'depth' : 'id';
  const zoom = (id: string, hasChildren: boolean) => {
    if (hasChildren && id !== node.id) setFocus(id);
  };
  // Top-level groups keep their colour by name (palette.ts ColorMap); their children share it.
  const tops = node.children ?? [];
  const byName = colors(tops.map((c) => c.name));
  const topColor = new Map(tops.map((c) => [c.id, byName.get(c.name)!]));
  const field = (i: number) => data.fields.find((f) => f.idx === i) ?? data.fields[i];
  // A node's tooltip names each level's column with the node's value there, then the measure's column.
  const tooltip = (n: { id: string | number; formattedValue: string | number }) => {
    const path = (find(tree, String(n.id)) ?? [])
      .slice(1)
      .filter((t) => !t.id.endsWith('/·'))
      .map((t) => t.name);
    return (
      <ChartTooltip
        rows={pathTooltipRows(
          levels.map((l) => columnLabel(field(l))),
          path,
          { column: columnLabel(field(value)), value: String(n.formattedValue) },
        )}
      />
    );
  };
  const common = {
    data: node,
    identity: 'id',
    value: 'value',
    valueFormat: (v: number) => formatNumber(v, fmt),
    colors: palette,
    animate: false,
    theme,
    tooltip: tooltip as never,
  } as const;
  return (
    <div className="hierarchy-view">
      {trail.length > 1 ? (
        <nav className="hierarchy-view__trail" aria-label="Zoom">
          {trail.map((t, i) => (
            <span key={t.id}>
              {i > 0 ? <span aria-hidden="true"> › </span> : null}
              {i < trail.length - 1 ? (
                <button type="button" onClick={() => setFocus(t.id)}>
                  {t.name}
                </button>
              ) : (
                <strong>{t.name}</strong>
              )}
            </span>
          ))}
        </nav>
      ) : null}
      <div className="chart__measure hierarchy-view__chart">
        {layout === 'sunburst' ? (
          <ResponsiveSunburst
            {...common}
            margin={{ top: 8, right: 8, bottom: 8, left: 8 }}
            cornerRadius={2}
            borderWidth={1}
            borderColor={mode === 'dark' ? '#111a2e' : '#ffffff'}
            colorBy={colorBy}
            inheritColorFromParent={colorBy === 'id'}
            childColor={{ from: 'color', modifiers: [['brighter', 0.35]] }}
            enableArcLabels
            arcLabel={(d) => (d.percentage > 6 ? String(d.id).split('/').pop()! : '')}
            arcLabelsSkipAngle={12}
            arcLabelsTextColor="#ffffff"
            onClick={(d) => zoom(String(d.id), Boolean((d.data as TreeNode).children?.length))}
            role="img"
          />
        ) : layout === 'circles' ? (
          <ResponsiveCirclePacking
            {...common}
            margin={{ top: 8, right: 8, bottom: 8, left: 8 }}
            padding={3}
            colorBy={colorBy}
            inheritColorFromParent={colorBy === 'id'}
            childColor={{ from: 'color', modifiers: [['brighter', 0.5]] }}
            enableLabels
            label={(d) => (d as unknown as { data: TreeNode }).data.name}
            labelsSkipRadius={18}
            labelTextColor={mode === 'dark' ? '#e2e8f0' : '#0f172a'}
            onClick={(d) => zoom(String(d.id), Boolean((d.data as TreeNode).children?.length))}
            role="img"
          />
        ) : layout === 'partition' ? (
          <ResponsiveIcicle
            {...common}
            orientation="bottom"
            margin={{ top: 4, right: 4, bottom: 4, left: 4 }}
            colorBy={colorBy}
            inheritColorFromParent={colorBy === 'id'}
            childColor={{ from: 'color', modifiers: [['brighter', 0.3]] }}
            borderWidth={1}
            borderColor={mode === 'dark' ? '#111a2e' : '#ffffff'}
            enableLabels
            label={(d) => (d.data as TreeNode).name}
            labelTextColor="#ffffff"
            onClick={(d) => zoom(String(d.id), Boolean((d.data as TreeNode).children?.length))}
            role="img"
          />
        ) : (
          <ResponsiveTreeMap
            {...common}
            // The focused node itself (the frame around its groups) is a neutral slate.
            colors={config.color_by === 'depth' ? palette : (n) => topColor.get(String(n.pathComponents[1])) ?? '#64748b'}
            colorBy={config.color_by === 'depth' ? 'treeDepth' : 'pathComponents.1'}
            tooltip={({ node: n }) => tooltip(n)}
            margin={{ top: 0, right: 0, bottom: 0, left: 0 }}
            tile="squarify"
            innerPadding={2}
            outerPadding={2}
            nodeOpacity={1}
            borderWidth={0}
            // Each label fits its cell on one line (shortened with "…", or left out): never rotated, never over a neighbour.
            label={(d) => treemapLabel((d.data as TreeNode).name, formatCompact(d.value, fmt), d.width, d.height)}
            labelSkipSize={0}
            orientLabel={false}
            labelTextColor="#ffffff"
            parentLabel={(d) => fitLabel((d.data as TreeNode).name, d.width, d.height < 40 ? 0 : d.height, 8)}
            parentLabelTextColor="#ffffff"
            parentLabelSize={18}
            enableParentLabel
            onClick={(d) => zoom(String(d.id), Boolean((d.data as TreeNode).children?.length))}
            role="img"
          />
        )}
      </div>
    </div>
  );
}
