/** A trigger button with a panel under it; closes on Escape, on a click outside, or when the panel asks. */
import { useId, useRef, useState, type ReactNode } from 'react';
import { useDismiss } from '../../lib/use-dismiss';

interface Props {
  label: string;
  summary: ReactNode;
  testId: string;
  active?: boolean;
  invalid?: boolean;
  wide?: boolean;
  children: (close: () => void) => ReactNode;
}

export function Popover({ label, summary, testId, active, invalid, wide, children }: Props) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const id = useId();
  useDismiss(open, ref, () => setOpen(false));
  return (
    <div className="filter-pop" ref={ref}>
      <span className="filter__label" id={`${id}-label`}>
        {label}
      </span>
      <button
        type="button"
        className={`filter-pop__trigger${active ? ' is-active' : ''}${invalid ? ' is-invalid' : ''}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-labelledby={`${id}-label ${id}-value`}
        onClick={() => setOpen((o) => !o)}
        data-testid={testId}
      >
        <span className="filter-pop__value" id={`${id}-value`}>
          {summary}
        </span>
        <span className="filter-pop__caret" aria-hidden="true">
          ▾
        </span>
      </button>
      {open ? (
        <div className={`filter-pop__panel${wide ? ' filter-pop__panel--wide' : ''}`} role="dialog" aria-label={label}>
          {children(() => setOpen(false))}
        </div>
      ) : null}
    </div>
  );
}
