/**
 * The dashboard settings form: general, time zone, data refresh, display and filters. It edits a
 * SettingsForm (lib/dashboard-settings.ts) and shows the API's messages next to each field.
 */
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { CheckField, FieldErrors, FormErrors, SelectField, TextField } from '../editor/Field';
import { ColorSchemePicker } from './ColorSchemePicker';
import { TimeZoneMultiPick } from './TimeZoneMultiPick';
import { allTimeZones, SETTINGS_AGGREGATIONS, type SettingsForm } from '../../lib/dashboard-settings';

const TZ_TYPES = [
  { value: 'organization', label: 'Organization time zone' },
  { value: 'fixed', label: 'A fixed time zone' },
  { value: 'input', label: 'Viewers choose' },
  { value: 'disabled', label: 'No time zone handling' },
] as const;

const AGG_LABELS: Record<string, string> = {
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  week: 'Week (Monday)',
  week_sunday: 'Week (Sunday)',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
  all_time: 'All time',
};

interface Props {
  initial: SettingsForm;
  organizationZone: string;
  errors: Record<string, string[]>;
  busy: boolean;
  readOnly: boolean;
  cancelHref: string;
  onSubmit(form: SettingsForm): void;
}

export function DashboardSettingsForm({ initial, organizationZone, errors, busy, readOnly, cancelHref, onSubmit }: Props) {
  const [form, setForm] = useState(initial);
  const zones = useMemo(() => allTimeZones(), []);
  const set =
    <K extends keyof SettingsForm>(key: K) =>
    (value: SettingsForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const unplaced = errors._form ?? [];
  return (
    <form
      className="editor-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!readOnly) onSubmit(form);
      }}
      data-testid="dashboard-settings-form"
    >
      <FormErrors messages={unplaced} />
      <fieldset disabled={readOnly} className="settings-section" style={{ border: 0, padding: 0, margin: 0 }}>
        <section className="settings-section" aria-label="General">
          <h2>General</h2>
          <TextField name="name" label="Name" value={form.name} onChange={set('name')} errors={errors} required />
          <TextField name="description" label="Description" value={form.description} onChange={set('description')} errors={errors} multiline />
        </section>

        <section className="settings-section" aria-label="Time zone">
          <h2>Time zone</h2>
          <SelectField
            name="tzType"
            label="Dates and times are shown in"
            value={form.tzType}
            onChange={(v) => set('tzType')(v as SettingsForm['tzType'])}
            options={TZ_TYPES.map((t) => (t.value === 'organization' ? { ...t, label: `${t.label} (${organizationZone})` } : t))}
            errors={errors}
          />
          {form.tzType === 'fixed' || form.tzType === 'input' ? (
            <SelectField
              name="fixedZone"
              label={form.tzType === 'fixed' ? 'Time zone' : 'Default time zone (until a viewer chooses)'}
              value={form.fixedZone}
              onChange={set('fixedZone')}
              options={[
                { value: '', label: form.tzType === 'fixed' ? 'Choose a time zone' : `None (${organizationZone})` },
                ...zones.map((z) => ({ value: z, label: z })),
              ]}
              errors={errors}
            />
          ) : null}
          {form.tzType === 'input' ? (
            <TimeZoneMultiPick
              name="allowedZones"
              label="Time zones viewers may choose"
              zones={zones}
              value={form.allowedZones}
              onChange={set('allowedZones')}
              errors={errors}
              disabled={readOnly}
            />
          ) : null}
        </section>

        <section className="settings-section" aria-label="Data refresh">
          <h2>Data refresh</h2>
          <div className="field-row">
            <TextField
              name="refreshRate"
              label="Results stay fresh for (minutes)"
              type="number"
              value={form.refreshRate}
              onChange={set('refreshRate')}
              errors={errors}
              hint="1440 minutes is one day."
            />
            <TextField
              name="anchorTime"
              label="Refresh anchored at (HH:MM)"
              value={form.anchorTime}
              onChange={set('anchorTime')}
              errors={errors}
              placeholder="e.g. 06:00"
              hint="Optional: results expire at this time of day."
            />
          </div>
          <CheckField
            name="automaticUpdate"
            label="Update open dashboards automatically when results are refreshed"
            checked={form.automaticUpdate}
            onChange={set('automaticUpdate')}
            errors={errors}
          />
          <CheckField
            name="prewarm"
            label="Prewarm: run the reports ahead of time so the dashboard opens with fresh results"
            checked={form.prewarm}
            onChange={set('prewarm')}
            errors={errors}
          />
          <CheckField name="thumbnail" label="Keep a thumbnail image of the dashboard" checked={form.thumbnail} onChange={set('thumbnail')} errors={errors} />
        </section>

        <section className="settings-section" aria-label="Display">
          <h2>Display</h2>
          <TextField
            name="pageWidth"
            label="Page width (pixels)"
            type="number"
            value={form.pageWidth}
            onChange={set('pageWidth')}
            errors={errors}
            hint="320 to 7680; 1600 by default."
          />
          <ColorSchemePicker name="colorScheme" value={form.colorScheme} onChange={set('colorScheme')} errors={errors} disabled={readOnly} />
        </section>

        <section className="settings-section" aria-label="Filters">
          <h2>Filters</h2>
          <CheckField
            name="applyImmediately"
            label="Apply filter changes immediately (otherwise viewers press Apply)"
            checked={form.applyImmediately}
            onChange={set('applyImmediately')}
            errors={errors}
          />
          <div className="field" data-testid="field-aggregationOptions">
            <span className="field__label">Aggregations the built-in aggregation filter offers</span>
            <div className="aggregation-pick">
              {SETTINGS_AGGREGATIONS.map((a) => (
                <label key={a} className="check">
                  <input
                    type="checkbox"
                    checked={form.aggregationOptions.includes(a)}
                    onChange={(e) =>
                      set('aggregationOptions')(
                        e.currentTarget.checked
                          ? SETTINGS_AGGREGATIONS.filter((x) => x === a || form.aggregationOptions.includes(x))
                          : form.aggregationOptions.filter((x) => x !== a),
                      )
                    }
                  />
                  <span>{AGG_LABELS[a] ?? a}</span>
                </label>
              ))}
            </div>
            <span className="field__hint">None ticked: every aggregation except “All time”.</span>
            <FieldErrors name="aggregationOptions" errors={errors} />
          </div>
        </section>
      </fieldset>
      {!readOnly ? (
        <div className="edit-toolbar">
          <button type="submit" className="button button--primary" disabled={busy} data-testid="settings-save">
            {busy ? 'Saving…' : 'Save settings'}
          </button>
          <Link to={cancelHref} className="button button--ghost">
            Cancel
          </Link>
        </div>
      ) : null}
    </form>
  );
}
