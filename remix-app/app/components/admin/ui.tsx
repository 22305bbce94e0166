/** Small building blocks of the administration and sharing pages. */
import { useEffect, useRef, useState, type ReactNode } from 'react';

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }) + ' UTC';
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toLocaleDateString('en-GB', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export type PillTone = 'ok' | 'warn' | 'bad' | 'info' | 'plain';

export function Pill({ tone = 'plain', children, testId }: { tone?: PillTone; children: ReactNode; testId?: string }) {
  return (
    <span className={`pill${tone === 'plain' ? '' : ` pill--${tone}`}`} data-testid={testId}>
      {children}
    </span>
  );
}

export function RowError({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="row-error" role="alert">
      {message}
    </p>
  );
}

/** A button that asks once more before it submits (for deletes and other changes that cannot be undone). */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  name = 'intent',
  value,
  disabled,
}: {
  label: string;
  confirmLabel: string;
  question: string;
  name?: string;
  value: string;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="button button--small button--danger" onClick={() => setAsking(true)} disabled={disabled}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button type="submit" name={name} value={value} className="button button--small button--danger-solid" autoFocus>
        {confirmLabel}
      </button>
      <button type="button" className="button button--small button--ghost" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** Copies `text` to the clipboard; says so for two seconds. */
export function CopyButton({ text, label = 'Copy', testId }: { text: string; label?: string; testId?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(null), 2000);
  };
  return (
    <button type="button" className="button button--small" onClick={copy} data-testid={testId} aria-live="polite">
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select and copy' : label}
    </button>
  );
}

export function Meter({ label, used, limit, testId }: { label: string; used: number; limit: number; testId?: string }) {
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  return (
    <div className="meter" data-testid={testId}>
      <div className="meter__label">
        <span>{label}</span>
        <strong>
          {used} of {limit}
        </strong>
      </div>
      <div className="meter__bar" role="meter" aria-valuemin={0} aria-valuemax={limit} aria-valuenow={used} aria-label={label}>
        <div className={`meter__fill${used >= limit ? ' is-full' : ''}`} style={{ width: `${Math.round(share * 100)}%` }} />
      </div>
    </div>
  );
}
