/** The report editor's Settings tab: every report setting of the spec (docs: reports/settings). */
import { REPORT_SWITCHES, type FormState } from '../../lib/editor-forms';
import { CheckField, TextField } from './Field';

interface Props {
  form: FormState;
  set(name: string, value: unknown): void;
  errors: Record<string, string[]>;
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

export function ReportSettings({ form, set, errors }: Props) {
  return (
    <div className="report-settings" data-testid="report-settings">
      <section>
        <h3>Title and messages</h3>
        <TextField
          name="description"
          label="Description"
          hint="Shown as a tooltip on the title."
          value={str(form.description)}
          onChange={(v) => set('description', v)}
          errors={errors}
          multiline
          rows={2}
        />
        <TextField
          name="no_data_message"
          label="Message when there is no data"
          placeholder="No data"
          value={str(form.no_data_message)}
          onChange={(v) => set('no_data_message', v)}
          errors={errors}
        />
        <TextField
          name="attribution"
          label="Attribution"
          placeholder="Source: ERP, loaded nightly"
          value={str(form.attribution)}
          onChange={(v) => set('attribution', v)}
          errors={errors}
        />
      </section>
      <section>
        <h3>Actions and switches</h3>
        {REPORT_SWITCHES.map((s) => (
          <CheckField key={s.name} name={s.name} label={s.label} checked={form[s.name] === true} onChange={(v) => set(s.name, v)} errors={errors} />
        ))}
      </section>
      <section>
        <h3>Refresh</h3>
        <p className="muted small">Empty fields follow the dashboard’s refresh rate and anchor time.</p>
        <div className="field-row">
          <TextField
            name="data_refresh_rate"
            label="Data refresh rate (minutes)"
            type="number"
            placeholder="the dashboard’s"
            value={str(form.data_refresh_rate)}
            onChange={(v) => set('data_refresh_rate', v)}
            errors={errors}
          />
          <TextField
            name="data_refresh_anchor_time"
            label="Anchor time (HH:MM)"
            placeholder="06:30"
            value={str(form.data_refresh_anchor_time)}
            onChange={(v) => set('data_refresh_anchor_time', v)}
            errors={errors}
          />
        </div>
      </section>
      <section>
        <h3>Size when shown alone</h3>
        <div className="field-row">
          <TextField
            name="default_page_width"
            label="Width (pixels)"
            type="number"
            value={str(form.default_page_width)}
            onChange={(v) => set('default_page_width', v)}
            errors={errors}
          />
          <TextField
            name="default_page_height"
            label="Height (pixels)"
            type="number"
            value={str(form.default_page_height)}
            onChange={(v) => set('default_page_height', v)}
            errors={errors}
          />
        </div>
      </section>
    </div>
  );
}
