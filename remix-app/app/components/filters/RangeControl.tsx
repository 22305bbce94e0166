/**
 * Date, date-time and time ranges (and the built-in timerange): relative presets, from–to, before and
 * after, each offered only when the filter enables it. Ends are inclusive: a day range ends at 23:59:59
 * of its last day in the dashboard's zone; a time window at the last second of its last minute.
 */
import { useState } from 'react';
import { dayToUnix, daysToInstantRange, sideToDay, type FilterDef } from '../../lib/filters';
import { isRelativeToken, relativeLabel, RELATIVE_PRESETS, wallInput, wallToUnix } from '../../lib/filters-range';
import { Popover } from './Popover';

type Mode = 'relative' | 'between' | 'before' | 'after';

interface Props {
  def: FilterDef;
  value: string;
  zone: string;
  onChange: (value: string) => void;
}

const dayFmt = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
const showDay = (day: string) => (day ? dayFmt.format(new Date(`${day}T00:00:00Z`)) : '');

function modeOf(value: string): Mode | null {
  if (!value) return null;
  if (isRelativeToken(value)) return 'relative';
  const [a, b] = value.split('~');
  if (a && b) return 'between';
  return a ? 'after' : 'before';
}

const kindOf = (def: FilterDef) => (def.controlType === 'time_range' ? 'time' : def.controlType === 'date_range' || def.builtin ? 'day' : 'instant');

/** One side of a range value as the inputs show it. */
function sideInput(def: FilterDef, side: string, zone: string): string {
  if (!side) return '';
  const kind = kindOf(def);
  if (kind === 'time') return side.slice(0, 5);
  if (kind === 'day') return sideToDay(side, zone, def.controlType !== 'date_range');
  return /^-?\d+$/.test(side) ? wallInput(Number(side), zone) : side.slice(0, 16);
}

/** A range value in words ("Last 7 days", "Mar 1, 2025 – Mar 31, 2025", "until …"); null when unset. */
export function rangeSummary(def: FilterDef, value: string, zone: string): string | null {
  const current = modeOf(value);
  if (!current) return null;
  if (current === 'relative') return relativeLabel(value);
  const [start = '', end = ''] = value.split('~');
  const show = (s: string) => (kindOf(def) === 'day' ? showDay(sideInput(def, s, zone)) : sideInput(def, s, zone).replace('T', ' '));
  if (current === 'between') return `${show(start)} – ${show(end)}`;
  if (current === 'before') return `until ${show(end)}`;
  return `from ${show(start)}`;
}

export function RangeControl({ def, value, zone, onChange }: Props) {
  const kind = kindOf(def);
  const modes: Mode[] = [
    ...(def.ranges.relative && kind !== 'time' ? ['relative' as const] : []),
    ...(def.ranges.fromTo ? ['between' as const] : []),
    ...(def.ranges.before ? ['before' as const] : []),
    ...(def.ranges.after ? ['after' as const] : []),
  ];
  const current = modeOf(value);
  const [start = '', end = ''] = current && current !== 'relative' ? value.split('~') : [];
  const toInput = (side: string) => sideInput(def, side, zone);
  const text = rangeSummary(def, value, zone);
  const summary = text ?? <span className="muted">{kind === 'time' ? 'Any time' : 'All time'}</span>;
  const [mode, setMode] = useState<Mode>(current ?? modes[0] ?? 'between');
  const [from, setFrom] = useState(toInput(start));
  const [to, setTo] = useState(toInput(end));
  const [problem, setProblem] = useState<string | null>(null);

  /** The URL form of the picked sides. */
  const encode = (a: string, b: string): string => {
    if (kind === 'time') return `${a ? `${a}:00` : ''}~${b ? `${b}:59` : ''}`;
    if (def.controlType === 'date_range') return `${a ? dayToUnix(a) : ''}~${b ? dayToUnix(b) : ''}`;
    if (kind === 'day') return daysToInstantRange(a, b, zone);
    const s = a ? wallToUnix(a, zone) : null;
    const e = b ? wallToUnix(b, zone) : null;
    return `${s ?? ''}~${e === null ? '' : e + 59}`;
  };
  const apply = (close: () => void) => {
    const a = mode === 'before' ? '' : from;
    const b = mode === 'after' ? '' : to;
    if ((mode === 'between' && (!a || !b)) || (mode === 'before' && !b) || (mode === 'after' && !a)) {
      setProblem('Choose the dates first.');
      return;
    }
    if (a && b && a > b) {
      setProblem('The end lies before the start.');
      return;
    }
    setProblem(null);
    onChange(encode(a, b));
    close();
  };
  const inputType = kind === 'time' ? 'time' : kind === 'day' ? 'date' : 'datetime-local';
  const LABELS: Record<Mode, string> = { relative: 'Relative', between: 'Between', before: 'Before', after: 'After' };
  return (
    <Popover label={def.label} summary={summary} testId={`filter-${def.variable}`} active={Boolean(current)} invalid={def.required && !current} wide>
      {(close) => (
        <div className="range-panel">
          {modes.length > 1 ? (
            <div className="segmented" role="tablist">
              {modes.map((m) => (
                <button
                  key={m}
                  type="button"
                  role="tab"
                  aria-selected={mode === m}
                  className={mode === m ? 'is-on' : undefined}
                  onClick={() => setMode(m)}
                  data-testid={`filter-${def.variable}-mode-${m}`}
                >
                  {LABELS[m]}
                </button>
              ))}
            </div>
          ) : null}
          {mode === 'relative' ? (
            <ul className="range-panel__presets">
              {RELATIVE_PRESETS.filter((p) => kind === 'instant' || !p.timeOnly).map((p) => (
                <li key={p.token}>
                  <button
                    type="button"
                    className={value === p.token ? 'is-on' : undefined}
                    onClick={() => {
                      onChange(p.token);
                      close();
                    }}
                    data-testid={`filter-${def.variable}-preset-${p.token}`}
                  >
                    {p.label}
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <div className="range-panel__inputs">
              {mode !== 'before' ? (
                <label className="field">
                  <span className="field__label">{mode === 'after' ? 'From' : 'Start'}</span>
                  <input type={inputType} value={from} onChange={(e) => setFrom(e.currentTarget.value)} data-testid={`filter-${def.variable}-start`} />
                </label>
              ) : null}
              {mode !== 'after' ? (
                <label className="field">
                  <span className="field__label">{mode === 'before' ? 'Until' : 'End'} (included)</span>
                  <input type={inputType} value={to} onChange={(e) => setTo(e.currentTarget.value)} data-testid={`filter-${def.variable}-end`} />
                </label>
              ) : null}
              {problem ? (
                <p className="range-panel__problem" role="alert">
                  {problem}
                </p>
              ) : null}
            </div>
          )}
          <div className="dropdown-panel__actions">
            <button
              type="button"
              className="button button--ghost button--small"
              onClick={() => {
                onChange('');
                close();
              }}
              disabled={!current}
            >
              Clear
            </button>
            {mode !== 'relative' ? (
              <button type="button" className="button button--primary button--small" onClick={() => apply(close)} data-testid={`filter-${def.variable}-set`}>
                Set range
              </button>
            ) : null}
          </div>
        </div>
      )}
    </Popover>
  );
}
