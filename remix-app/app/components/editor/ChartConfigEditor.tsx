/**
 * The chart tab's options: the chart type (every type of components/charts/config.ts) and, per type, the
 * columns that feed it and its switches, choices and numbers, written into `chart_configuration`.
 */
import type { ReactNode } from 'react';
import { CHART_LABELS, CHART_TYPES, type ChartType } from '../charts/config';
import {
  chartControls,
  columnsFor,
  getPath,
  isChartType,
  MULTI_PIVOT_AGGREGATIONS,
  readLabelMap,
  setLabel,
  setPath,
  switchChartType,
  switchValue,
  WITH_DRILLDOWN,
  type ChartControl,
} from '../../lib/editor-chart';
import { DrilldownEditor, type DrillTarget } from './DrilldownEditor';
import type { DataField } from '../../lib/types';

type Config = Record<string, unknown>;

interface Props {
  config: Config;
  fields: DataField[];
  palette: string[];
  /** Dashboards a drill-down may open (with their filter variables). */
  drillTargets?: DrillTarget[];
  onChange(config: Config): void;
}

/**
 * Each chart type's icon, drawn as SVG (16 × 16, in the text colour) so it shows whatever fonts the
 * browser has: the Line icon used to be a text glyph (⟋) that most fonts lack, and so drew nothing.
 */
const ICON_SHAPES: Record<ChartType, ReactNode> = {
  table: (
    <>
      <rect x="1.5" y="2.5" width="13" height="11" rx="1" fill="none" />
      <path d="M1.5 6.5h13M1.5 10h13M6 6.5v7" />
    </>
  ),
  pivot: (
    <>
      <rect x="1.5" y="1.5" width="13" height="13" rx="1" fill="none" />
      <path d="M1.5 5.5h13M5.5 1.5v13M10 5.5v9M5.5 10h9" />
    </>
  ),
  multi_pivot: (
    <>
      <rect x="1.5" y="1.5" width="13" height="13" rx="1" fill="none" />
      <path d="M1.5 4.5h13M1.5 7.5h13M4.5 1.5v13M8 7.5v7M11.5 7.5v7" />
    </>
  ),
  number: <path d="M5.5 2 4 14M11.5 2 10 14M2.5 5.5h11M2 10.5h11" />,
  pie: (
    <>
      <circle cx="8" cy="8" r="6.5" fill="none" />
      <path d="M8 8V1.5A6.5 6.5 0 0 1 14.5 8Z" fill="currentColor" />
    </>
  ),
  line: <polyline points="1.5,12.5 5.5,7.5 9,10 14.5,3.5" fill="none" />,
  bar: <path d="M3 14V8M8 14V3M13 14V6" strokeWidth="3" />,
  map: (
    <>
      <circle cx="8" cy="8" r="6.5" fill="none" />
      <path d="M1.5 8h13M8 1.5c-3 3.5-3 9.5 0 13M8 1.5c3 3.5 3 9.5 0 13" fill="none" />
    </>
  ),
  gauge: (
    <>
      <path d="M1.5 12a6.5 6.5 0 0 1 13 0" fill="none" />
      <path d="M8 12l3.5-4.5" />
    </>
  ),
  xy_bubble: (
    <>
      <circle cx="4.5" cy="11" r="2" />
      <circle cx="9.5" cy="6" r="3" />
      <circle cx="13" cy="12" r="1.5" />
    </>
  ),
  word_cloud: <path d="M4.5 12.5h8a3 3 0 0 0 .3-6A4.5 4.5 0 0 0 4.2 6a3.3 3.3 0 0 0 .3 6.5Z" fill="none" />,
  histogram: <path d="M1.5 14.5V9h3V5h3v3h3v3.5h3v3Z" fill="none" />,
  hierarchy: (
    <>
      <rect x="1.5" y="1.5" width="13" height="13" rx="1" fill="none" />
      <path d="M8.5 1.5v13M8.5 8h6M1.5 9.5h7" />
    </>
  ),
};

function ChartTypeIcon({ type }: { type: ChartType }) {
  return (
    <svg
      className="chart-types__icon"
      data-icon={type}
      width="16"
      height="16"
      viewBox="0 0 16 16"
      aria-hidden="true"
      focusable="false"
      stroke="currentColor"
      strokeWidth="1.4"
      strokeLinecap="round"
      strokeLinejoin="round"
      fill="currentColor"
    >
      {ICON_SHAPES[type]}
    </svg>
  );
}

export function ChartTypePicker({ value, onPick }: { value: ChartType; onPick(type: ChartType): void }) {
  return (
    <div className="chart-types" role="radiogroup" aria-label="Chart type" data-testid="chart-type-picker">
      {CHART_TYPES.map((t) => (
        <button
          key={t}
          type="button"
          role="radio"
          aria-checked={value === t}
          className={`chart-types__item${value === t ? ' is-active' : ''}`}
          onClick={() => onPick(t)}
          data-testid={`chart-type-${t}`}
        >
          <ChartTypeIcon type={t} />
          <span>{CHART_LABELS[t]}</span>
        </button>
      ))}
    </div>
  );
}

export function ChartConfigEditor({ config, fields, palette, drillTargets = [], onChange }: Props) {
  const type: ChartType = isChartType(config.type) ? config.type : 'table';
  const set = (key: string, value: unknown) => onChange(setPath(config, key, value));
  const controls = chartControls(type);
  const main = controls.filter((c) => !c.key.startsWith('format.'));
  const format = controls.filter((c) => c.key.startsWith('format.'));
  return (
    <div className="chart-config" data-testid="chart-config">
      <ChartTypePicker value={type} onPick={(t) => onChange(switchChartType(config, t))} />
      {fields.length === 0 ? <p className="muted small">Run the query to choose columns from its result.</p> : null}
      <div className="chart-config__grid">
        {main.map((c) => (
          <Control key={c.key} control={c} value={getPath(config, c.key)} fields={fields} palette={palette} onChange={(v) => set(c.key, v)} />
        ))}
      </div>
      <fieldset className="chart-config__group">
        <legend>Number format</legend>
        <div className="chart-config__grid">
          {format.map((c) => (
            <Control key={c.key} control={c} value={getPath(config, c.key)} fields={fields} palette={palette} onChange={(v) => set(c.key, v)} />
          ))}
        </div>
      </fieldset>
      {WITH_DRILLDOWN.includes(type) ? (
        <DrilldownEditor
          value={config.drilldown as Parameters<typeof DrilldownEditor>[0]['value']}
          targets={drillTargets}
          fields={fields}
          onChange={(v) => {
            const next = { ...config };
            if (v) next.drilldown = v;
            else delete next.drilldown;
            onChange(next);
          }}
        />
      ) : null}
      <p className="muted small chart-config__palette">
        Colours come from the dashboard’s colour scheme; each series value keeps its colour in every chart of the dashboard (First colour turns the scheme for
        this chart).
      </p>
    </div>
  );
}

interface ControlProps {
  control: ChartControl;
  value: unknown;
  fields: DataField[];
  palette: string[];
  onChange(value: unknown): void;
}

function Control({ control: c, value, fields, palette, onChange }: ControlProps) {
  const id = `chart-${c.key.replace(/\./g, '-')}`;
  switch (c.kind) {
    case 'boolean': {
      const checked = typeof value === 'boolean' ? value : (c.on ?? false);
      return (
        <label className="check" htmlFor={id}>
          <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(switchValue(c, e.target.checked))} data-testid={id} />
          <span>{c.label}</span>
        </label>
      );
    }
    case 'column': {
      const names = columnsFor(c.accepts, fields);
      const current = typeof value === 'string' ? value : '';
      return (
        <label className="field" htmlFor={id}>
          <span className="field__label">{c.label}</span>
          <select id={id} value={current} onChange={(e) => onChange(e.target.value || undefined)} data-testid={id}>
            <option value="">Automatic</option>
            {c.allowSecondRow ? <option value="second_row">The second row’s value</option> : null}
            {current && current !== 'second_row' && !names.includes(current) ? <option value={current}>{current} (not in the result)</option> : null}
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      );
    }
    case 'columns':
      return (
        <ColumnList
          id={id}
          label={c.label}
          value={Array.isArray(value) ? (value as string[]) : []}
          options={columnsFor(c.accepts, fields)}
          onChange={onChange}
        />
      );
    case 'choice':
      return (
        <label className="field" htmlFor={id}>
          <span className="field__label">{c.label}</span>
          <select id={id} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value || undefined)} data-testid={id}>
            <option value="">Default</option>
            {c.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      );
    case 'number':
      return (
        <label className="field" htmlFor={id}>
          <span className="field__label">{c.label}</span>
          <input
            id={id}
            type="number"
            min={c.min}
            max={c.max}
            step={c.step ?? 'any'}
            value={typeof value === 'number' ? value : ''}
            onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
            data-testid={id}
          />
        </label>
      );
    case 'text':
      return (
        <label className="field" htmlFor={id}>
          <span className="field__label">{c.label}</span>
          <input id={id} type="text" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value || undefined)} data-testid={id} />
        </label>
      );
    case 'column_or_number':
      return (
        <label className="field" htmlFor={id}>
          <span className="field__label">{c.label}</span>
          <input
            id={id}
            list={`${id}-columns`}
            placeholder="a number or a column"
            value={value === undefined || value === null ? '' : String(value)}
            onChange={(e) => {
              const v = e.target.value.trim();
              onChange(v === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : v);
            }}
            data-testid={id}
          />
          <datalist id={`${id}-columns`}>
            {fields.map((f) => (
              <option key={f.name} value={f.name} />
            ))}
          </datalist>
        </label>
      );
    case 'value_list':
      return <ValueList value={Array.isArray(value) ? (value as { column: string; aggregation?: string }[]) : []} fields={fields} onChange={onChange} />;
    case 'label_map':
      return <LabelMap id={id} label={c.label} value={value} fields={fields} onChange={onChange} />;
    case 'bands':
      return <Bands value={Array.isArray(value) ? (value as { to: number; color?: string }[]) : []} palette={palette} onChange={onChange} />;
    case 'color_start': {
      const current = typeof value === 'number' ? value : 0;
      return (
        <div className="field" data-testid={id}>
          <span className="field__label">{c.label}</span>
          <div className="swatches" role="radiogroup" aria-label={`${c.label} of the dashboard’s colour scheme`}>
            {palette.map((color, i) => (
              <button
                key={color}
                type="button"
                role="radio"
                aria-checked={current === i}
                className={`swatch${current === i ? ' is-active' : ''}`}
                style={{ background: color }}
                onClick={() => onChange(i === 0 ? undefined : i)}
                title={`${color}${i === 0 ? ' (default)' : ''}`}
                data-testid={`${id}-${i}`}
              />
            ))}
          </div>
        </div>
      );
    }
  }
}

function ColumnList({ id, label, value, options, onChange }: { id: string; label: string; value: string[]; options: string[]; onChange(v: unknown): void }) {
  const rest = options.filter((o) => !value.includes(o));
  return (
    <div className="field column-list" data-testid={id}>
      <span className="field__label">{label}</span>
      <div className="column-list__chips">
        {value.length === 0 ? <span className="muted small">Automatic</span> : null}
        {value.map((v, i) => (
          <span key={v} className="chip">
            {v}
            {i > 0 ? (
              <button
                type="button"
                aria-label={`Move ${v} left`}
                onClick={() => onChange(value.map((x, j) => (j === i - 1 ? v : j === i ? value[i - 1]! : x)))}
              >
                ‹
              </button>
            ) : null}
            <button type="button" aria-label={`Remove ${v}`} onClick={() => onChange(value.filter((x) => x !== v))}>
              ×
            </button>
          </span>
        ))}
      </div>
      {rest.length ? (
        <select aria-label={`Add to ${label}`} value="" onChange={(e) => e.target.value && onChange([...value, e.target.value])} data-testid={`${id}-add`}>
          <option value="">Add a column…</option>
          {rest.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      ) : null}
    </div>
  );
}

/** One text box per result column; what is typed replaces the column's header (blank: its own name). */
function LabelMap({ id, label, value, fields, onChange }: { id: string; label: string; value: unknown; fields: DataField[]; onChange(v: unknown): void }) {
  const labels = readLabelMap(value);
  const names = [...fields.map((f) => f.name), ...Object.keys(labels).filter((n) => !fields.some((f) => f.name === n))];
  return (
    <div className="field label-map" data-testid={id}>
      <span className="field__label">{label}</span>
      {names.length === 0 ? <span className="muted small">Run the query to rename its columns.</span> : null}
      {names.map((n) => (
        <label key={n} className="value-list__row" htmlFor={`${id}-${n}`}>
          <span className="small">
            {n}
            {fields.some((f) => f.name === n) ? '' : ' (not in the result)'}
          </span>
          <input
            id={`${id}-${n}`}
            type="text"
            placeholder={n}
            value={labels[n] ?? ''}
            onChange={(e) => onChange(setLabel(value, n, e.target.value))}
            data-testid={`${id}-${n}`}
          />
        </label>
      ))}
    </div>
  );
}

function ValueList({ value, fields, onChange }: { value: { column: string; aggregation?: string }[]; fields: DataField[]; onChange(v: unknown): void }) {
  const update = (i: number, patch: Partial<{ column: string; aggregation?: string }>) => onChange(value.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <div className="field value-list">
      <span className="field__label">Values</span>
      {value.map((v, i) => (
        <div key={i} className="value-list__row">
          <select aria-label="Column" value={v.column} onChange={(e) => update(i, { column: e.target.value })}>
            {fields.map((f) => (
              <option key={f.name} value={f.name}>
                {f.name}
              </option>
            ))}
            {fields.some((f) => f.name === v.column) ? null : <option value={v.column}>{v.column}</option>}
          </select>
          <select aria-label="Aggregation" value={v.aggregation ?? 'sum'} onChange={(e) => update(i, { aggregation: e.target.value })}>
            {MULTI_PIVOT_AGGREGATIONS.map((a) => (
              <option key={a} value={a}>
                {a.replace('_', ' ')}
              </option>
            ))}
          </select>
          <button type="button" className="icon-button" aria-label="Remove this value" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            ×
          </button>
        </div>
      ))}
      {fields.length ? (
        <button
          type="button"
          className="button button--ghost button--small"
          onClick={() => onChange([...value, { column: fields[fields.length - 1]!.name, aggregation: 'sum' }])}
        >
          Add a value
        </button>
      ) : null}
    </div>
  );
}

function Bands({ value, palette, onChange }: { value: { to: number; color?: string }[]; palette: string[]; onChange(v: unknown): void }) {
  const update = (i: number, patch: Partial<{ to: number; color?: string }>) => onChange(value.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  return (
    <div className="field bands">
      <span className="field__label">Colour bands (up to a value)</span>
      {value.map((b, i) => (
        <div key={i} className="value-list__row">
          <input type="number" aria-label="Up to" value={Number.isFinite(b.to) ? b.to : ''} onChange={(e) => update(i, { to: Number(e.target.value) })} />
          <div className="swatches" role="radiogroup" aria-label="Colour">
            {palette.map((c) => (
              <button
                key={c}
                type="button"
                role="radio"
                aria-checked={b.color === c}
                className={`swatch${b.color === c ? ' is-active' : ''}`}
                style={{ background: c }}
                onClick={() => update(i, { color: c })}
                title={c}
              />
            ))}
          </div>
          <button type="button" className="icon-button" aria-label="Remove this band" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button--ghost button--small"
        onClick={() => onChange([...value, { to: (value[value.length - 1]?.to ?? 0) + 100, color: palette[value.length % palette.length] }])}
      >
        Add a band
      </button>
    </div>
  );
}
