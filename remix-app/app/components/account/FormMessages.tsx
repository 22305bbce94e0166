/** A personal-settings form's outcome: "Saved." when it worked, else what no field of the form shows. */
import { unplacedErrors } from '../../lib/editor-forms';
import type { AccountAnswer } from '../../lib/account';

export function FormMessages({ answer, fields, testId }: { answer: AccountAnswer | undefined; fields: string[]; testId: string }) {
  if (!answer) return null;
  if (answer.ok)
    return (
      <span className="row-ok" role="status" data-testid={`${testId}-saved`}>
        {answer.message}
      </span>
    );
  const rest = unplacedErrors(answer.errors, fields);
  if (!rest.length) return null;
  return (
    <p className="row-error" role="alert" data-testid={`${testId}-error`}>
      {rest.join(' ')}
    </p>
  );
}
