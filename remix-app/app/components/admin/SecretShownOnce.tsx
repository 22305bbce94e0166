/**
 * A secret the API answers only once, right after something was created (an API key, an agent's start
 * command with its secret key): what was created, the warning that it is not shown again, the value
 * with a copy button, and a hint on how to use it. Announced as a status when it appears.
 */
import type { ReactNode } from 'react';
import { CopyButton } from './ui';

export interface SecretShownOnceProps {
  /** What was created, in bold: "Key “ETL” created." */
  title: ReactNode;
  /** Why to copy it now. */
  warning: ReactNode;
  /** The text shown and copied. */
  value: string;
  /** How to use it (small print under the value). */
  hint?: ReactNode;
  /** Test ids of the box, the value and the copy button. */
  testIds: { box: string; value: string; copy: string };
}

export function SecretShownOnce({ title, warning, value, hint, testIds }: SecretShownOnceProps) {
  return (
    <div className="secret-box" role="status" data-testid={testIds.box}>
      <strong>{title}</strong> {warning}
      <div className="secret-box__value">
        <code data-testid={testIds.value}>{value}</code>
        <CopyButton text={value} testId={testIds.copy} />
      </div>
      {hint ? <span className="muted small">{hint}</span> : null}
    </div>
  );
}
