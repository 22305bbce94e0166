/**
 * Dashboard edit mode's grid: the reports as tiles on the 12-column grid (react-grid-layout), dragged by
 * their title bar and resized from the lower-right corner. Save sends the whole layout through
 * `PUT /dashboards/{id}/layout`; the API's errors are shown on the tiles they point at.
 */
import { useMemo, useRef, useState } from 'react';
import { Link, useFetcher } from 'react-router';
import ReactGridLayout, { getCompactor, useContainerWidth, type Layout } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import 'react-resizable/css/styles.css';
import { CHART_LABELS, parseChartConfig } from '../charts/config';
import { FormErrors } from '../editor/Field';
import { gridToTiles, layoutProblems, pushDownOverlaps, sameLayout, tileOfPointer, tilesToGrid, type GridItem, type Tile } from '../../lib/editor-layout';
import { errorsByField, unplacedErrors, type ApiErrorItem } from '../../lib/editor-forms';

interface LayoutReport {
  id: string;
  name: string;
  chartConfiguration: Record<string, unknown> | null;
}

interface Props {
  tiles: Tile[];
  floating: boolean;
  reports: LayoutReport[];
  /** `?f.…` of the dashboard, kept on links to the editor. */
  search: string;
}

const ROW_HEIGHT = 88;
const GAP = 16;

export function LayoutEditor({ tiles, floating: savedFloating, reports, search }: Props) {
  const { width, containerRef, mounted } = useContainerWidth({ initialWidth: 1200 });
  const [items, setItems] = useState<GridItem[]>(() => tilesToGrid(tiles));
  const [floating, setFloating] = useState(savedFloating);
  // The saved layout changed (after a save or a removal): start again from it.
  const serverKey = JSON.stringify([tiles, savedFloating]);
  const [synced, setSynced] = useState(serverKey);
  if (synced !== serverKey) {
    setSynced(serverKey);
    setItems(tilesToGrid(tiles));
    setFloating(savedFloating);
  }
  /** The tile being dragged or resized, and the layout before: it keeps its place, others make room. */
  const active = useRef<{ id: string; before: GridItem[] } | null>(null);
  const save = useFetcher<{ ok?: boolean; errors?: ApiErrorItem[]; sent?: Tile[] }>({ key: 'layout-save' });
  const remove = useFetcher<{ ok?: boolean; errors?: ApiErrorItem[] }>({ key: 'layout-remove' });
  const byId = useMemo(() => new Map(reports.map((r) => [r.id, r])), [reports]);

  const current = gridToTiles(items);
  const changed = !sameLayout(current, tiles) || floating !== savedFloating;
  const problems = layoutProblems(current, floating);
  const compactor = useMemo(() => getCompactor(floating ? 'vertical' : null, false, false), [floating]);

  const saveErrors = save.data?.errors ?? [];
  const byTile = new Map<string, string[]>();
  for (const e of saveErrors) {
    const id = tileOfPointer(e.source?.pointer, save.data?.sent ?? []);
    if (id) byTile.set(id, [...(byTile.get(id) ?? []), e.detail ?? e.code ?? 'Refused.']);
  }
  const general = saveErrors.filter((e) => !tileOfPointer(e.source?.pointer, save.data?.sent ?? []));
  const removeMessages = unplacedErrors(errorsByField(remove.data?.errors), []);

  const settle = (next: Layout, moved: { i: string; x: number; y: number; w: number; h: number } | null) => {
    const start = active.current;
    active.current = null;
    const plain: GridItem[] = next.map(({ i, x, y, w, h }) => ({ i, x, y, w, h, minW: 1, minH: 1, maxW: 12 }));
    let settled = plain;
    if (!floating) {
      // Without floating, tiles the moving one passed over go back; only those it now covers move down.
      const base = start && moved ? start.before.map((it) => (it.i === moved.i ? { ...it, x: moved.x, y: moved.y, w: moved.w, h: moved.h } : it)) : plain;
      settled = pushDownOverlaps(base, moved?.i ?? null);
    }
    setItems((prev) => (JSON.stringify(prev) === JSON.stringify(settled) ? prev : settled));
  };

  const onSave = () => save.submit({ intent: 'layout', layout: current, floating_enabled: floating } as never, { method: 'post', encType: 'application/json' });

  return (
    <section className="layout-editor" data-testid="layout-editor">
      <div className="edit-toolbar">
        <label className="check">
          <input type="checkbox" checked={floating} onChange={(e) => setFloating(e.target.checked)} data-testid="layout-floating" />
          <span>Floating: tiles move up into empty rows</span>
        </label>
        <span className="spacer" />
        {save.data?.ok && !changed ? (
          <span className="badge badge--ok" role="status" data-testid="layout-saved">
            Layout saved
          </span>
        ) : null}
        {changed ? (
          <span className="muted small" data-testid="layout-unsaved">
            Unsaved changes
          </span>
        ) : null}
        <button
          type="button"
          className="button button--ghost"
          disabled={!changed || save.state !== 'idle'}
          onClick={() => {
            setItems(tilesToGrid(tiles));
            setFloating(savedFloating);
          }}
        >
          Undo changes
        </button>
        <button type="button" className="button button--primary" disabled={!changed || save.state !== 'idle'} onClick={onSave} data-testid="layout-save">
          {save.state !== 'idle' ? 'Saving…' : 'Save layout'}
        </button>
      </div>
      {problems.length && changed ? <p className="notice small">{problems.join(' ')} The API refuses overlapping tiles unless floating is on.</p> : null}
      <FormErrors messages={[...general.map((e) => e.detail ?? e.code ?? 'The layout was refused.'), ...removeMessages]} />
      {items.length === 0 ? (
        <section className="empty-state">
          <h2>No reports yet</h2>
          <p>Add a report: it appears at the bottom of the grid.</p>
        </section>
      ) : null}
      <div ref={containerRef} className="layout-grid" style={{ backgroundSize: `${(width - GAP) / 12}px ${ROW_HEIGHT + GAP}px` }}>
        {mounted ? (
          <ReactGridLayout
            width={width}
            layout={items as Layout}
            gridConfig={{ cols: 12, rowHeight: ROW_HEIGHT, margin: [GAP, GAP], containerPadding: [GAP / 2, GAP / 2] }}
            dragConfig={{ enabled: true, handle: '.layout-tile__bar', cancel: '.layout-tile__actions' }}
            resizeConfig={{ enabled: true, handles: ['se'] }}
            compactor={compactor}
            onDragStart={(_l, _old, item) => {
              active.current = item ? { id: item.i, before: items } : null;
            }}
            onResizeStart={(_l, _old, item) => {
              active.current = item ? { id: item.i, before: items } : null;
            }}
            onDragStop={(next, _old, item) => settle(next, item)}
            onResizeStop={(next, _old, item) => settle(next, item)}
            onLayoutChange={(next: Layout) => {
              // Moves and resizes are taken when they stop; besides those, only floating compacts the grid.
              if (floating && !active.current) settle(next, null);
            }}
          >
            {items.map((it) => {
              const report = byId.get(it.i);
              const type = parseChartConfig(report?.chartConfiguration).config.type;
              const errors = byTile.get(it.i);
              return (
                <div
                  key={it.i}
                  className={`layout-tile${errors ? ' has-error' : ''}`}
                  data-testid={`layout-tile-${it.i}`}
                  data-x={it.x}
                  data-y={it.y}
                  data-w={it.w}
                  data-h={it.h}
                >
                  <div className="layout-tile__bar" title="Drag to move">
                    <span aria-hidden="true">⠿</span>
                    <span className="layout-tile__title">{report?.name ?? it.i}</span>
                    <span className="layout-tile__actions">
                      <Link
                        to={`/app/reports/${encodeURIComponent(it.i)}${search}`}
                        className="button button--ghost button--small"
                        data-testid={`edit-report-${it.i}`}
                      >
                        Edit
                      </Link>
                      <remove.Form
                        method="post"
                        onSubmit={(e) => {
                          if (!window.confirm(`Remove the report “${report?.name ?? it.i}” from the dashboard? It is deleted.`)) e.preventDefault();
                        }}
                      >
                        <input type="hidden" name="intent" value="remove" />
                        <input type="hidden" name="report" value={it.i} />
                        <button
                          type="submit"
                          className="button button--ghost button--small"
                          data-testid={`remove-report-${it.i}`}
                          aria-label={`Remove ${report?.name ?? it.i}`}
                        >
                          ✕
                        </button>
                      </remove.Form>
                    </span>
                  </div>
                  <div className="layout-tile__body">
                    <span>{CHART_LABELS[type]}</span>
                    <span>
                      column {it.x + 1}, row {it.y + 1} · {it.w} × {it.h}
                    </span>
                    {errors ? (
                      <span className="field__error" role="alert">
                        {errors.join(' ')}
                      </span>
                    ) : null}
                  </div>
                </div>
              );
            })}
          </ReactGridLayout>
        ) : null}
      </div>
      <p className="muted small">Drag a tile by its title bar; drag its lower-right corner to resize. Tiles snap to the 12-column grid.</p>
    </section>
  );
}
