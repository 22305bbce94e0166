/** The API's messages for one form field, and those that belong to no field shown. */
import { unplacedErrors } from '../../lib/editor-forms';

export function FieldErrors({ messages, testId }: { messages?: string[]; testId?: string }) {
  if (!messages?.length) return null;
  return (
    <span className="field__error" role="alert" data-testid={testId}>
      {messages.join(' ')}
    </span>
  );
}

export function FormErrors({ errors, shown }: { errors: Record<string, string[]>; shown: readonly string[] }) {
  const rest = unplacedErrors(errors, shown);
  return rest.length ? (
    <p className="alert alert--error" role="alert" data-testid="group-error">
      {rest.join(' ')}
    </p>
  ) : null;
}
