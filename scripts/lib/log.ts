/** Small console helpers shared by start, test and bench: colours only on a terminal, never with NO_COLOR. */

const useColor = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';

const CODES = {
  bold: 1,
  dim: 2,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  gray: 90,
} as const;
export type Color = keyof typeof CODES;

export function paint(color: Color, text: string): string {
  return useColor ? `\u001b[${CODES[color]}m${text}\u001b[0m` : text;
}

/** A line from the orchestrator itself (not from a child). */
export function say(text: string): void {
  process.stdout.write(`${paint('bold', '[cairn]')} ${text}\n`);
}

export function warn(text: string): void {
  process.stderr.write(`${paint('yellow', '[cairn] warning:')} ${text}\n`);
}

export function fail(text: string): void {
  process.stderr.write(`${paint('red', '[cairn] error:')} ${text}\n`);
}

/** Removes terminal colour codes (for tails kept for error messages). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
