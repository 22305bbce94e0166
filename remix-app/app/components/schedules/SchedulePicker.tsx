/**
 * When a scheduled e-mail goes out, picked rather than typed: frequency, the days (weekdays or days of
 * the month) and one or more times. The spec's schedule string is built from the picks
 * (schedule-picker.ts); a stored string that the pickers cannot show stays editable as text.
 */
import { useState } from 'react';
import { FieldErrors } from '../editor/Field';
import { picksOf, picksProblem, scheduleOf, WEEKDAY_LABELS, type Frequency, type SchedulePicks } from './schedule-picker';
import './schedules.css';

const FREQUENCIES: { value: Frequency; label: string }[] = [
  { value: 'daily', label: 'Every day' },
  { value: 'weekly', label: 'Every week' },
  { value: 'monthly', label: 'Every month' },
  { value: 'disabled', label: 'Paused (not sent)' },
];

export function SchedulePicker({ value, onChange, errors }: { value: string; onChange(next: string): void; errors: Record<string, string[]> }) {
  const [picks, setPicks] = useState<SchedulePicks | null>(() => picksOf(value));
  const update = (next: SchedulePicks) => {
    setPicks(next);
    onChange(scheduleOf(next));
  };
  if (!picks) {
    return (
      <div className="field" data-testid="field-schedule">
        <span className="field__label">When</span>
        <input value={value} onChange={(e) => onChange(e.target.value)} className="mono" aria-label="Schedule" data-testid="schedule-raw" />
        <span className="field__hint">
          This schedule is written in a form the pickers cannot show; edit it here or
          <button type="button" className="link-button" onClick={() => update({ frequency: 'weekly', weekdays: [0], monthdays: [1], times: ['08:00'] })}>
            start over with the pickers
          </button>
          .
        </span>
        <FieldErrors name="schedule" errors={errors} />
      </div>
    );
  }
  const problem = picksProblem(picks);
  const toggleDay = (list: 'weekdays' | 'monthdays', day: number, on: boolean) =>
    update({ ...picks, [list]: on ? [...picks[list], day] : picks[list].filter((d) => d !== day) });
  const setTime = (i: number, t: string) => update({ ...picks, times: picks.times.map((x, j) => (j === i ? t : x)) });
  return (
    <fieldset className="schedule-pick" data-testid="field-schedule">
      <legend>When</legend>
      <label className="field">
        <span className="field__label">Frequency</span>
        <select value={picks.frequency} onChange={(e) => update({ ...picks, frequency: e.target.value as Frequency })} data-testid="schedule-frequency">
          {FREQUENCIES.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
      {picks.frequency === 'weekly' ? (
        <div className="schedule-pick__days" role="group" aria-label="Days of the week">
          {WEEKDAY_LABELS.map((d, i) => (
            <label key={d} className="check">
              <input
                type="checkbox"
                checked={picks.weekdays.includes(i)}
                onChange={(e) => toggleDay('weekdays', i, e.target.checked)}
                data-testid={`schedule-weekday-${i}`}
              />
              <span>{d}</span>
            </label>
          ))}
        </div>
      ) : null}
      {picks.frequency === 'monthly' ? (
        <div className="schedule-pick__days schedule-pick__days--month" role="group" aria-label="Days of the month">
          {Array.from({ length: 31 }, (_, i) => i + 1).map((d) => (
            <label key={d} className="check">
              <input
                type="checkbox"
                checked={picks.monthdays.includes(d)}
                onChange={(e) => toggleDay('monthdays', d, e.target.checked)}
                data-testid={`schedule-monthday-${d}`}
              />
              <span>{d}</span>
            </label>
          ))}
          <span className="field__hint">Months without a chosen day (the 31st, say) skip it.</span>
        </div>
      ) : null}
      {picks.frequency !== 'disabled' ? (
        <div className="schedule-pick__times" role="group" aria-label="Times">
          {picks.times.map((t, i) => (
            <span key={i} className="schedule-pick__time">
              <input
                type="time"
                value={t}
                onChange={(e) => setTime(i, e.target.value)}
                aria-label={`Time ${i + 1}`}
                data-testid={`schedule-time-${i}`}
                required
              />
              {picks.times.length > 1 ? (
                <button
                  type="button"
                  className="button button--small button--ghost"
                  aria-label={`Remove time ${i + 1}`}
                  onClick={() => update({ ...picks, times: picks.times.filter((_, j) => j !== i) })}
                >
                  ×
                </button>
              ) : null}
            </span>
          ))}
          {picks.times.length < 24 ? (
            <button
              type="button"
              className="button button--small"
              onClick={() => update({ ...picks, times: [...picks.times, '12:00'] })}
              data-testid="schedule-add-time"
            >
              Add a time
            </button>
          ) : null}
        </div>
      ) : null}
      {problem ? (
        <span className="field__error" role="alert">
          {problem}
        </span>
      ) : null}
      <span className="field__hint">
        Stored as <code data-testid="schedule-string">{scheduleOf(picks)}</code>, in the time zone below.
      </span>
      <FieldErrors name="schedule" errors={errors} />
    </fieldset>
  );
}
