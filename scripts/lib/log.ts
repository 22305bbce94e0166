/** Small console helpers shared by start, test and bench: colours only on a terminal, never with NO_COLOR. */
import { AsyncLocalStorage } from 'node:async_hooks';

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

/**
 * A prefix for every line written while `fn` runs (and by what it starts): `npm test` runs two lanes at
 * once and marks the end-to-end lane's lines (`B │ `) so the two can be told apart.
 */
const lane = new AsyncLocalStorage<string>();

export function withLinePrefix<T>(prefix: string, fn: () => T): T {
  return lane.run(prefix, fn);
}

/** The prefix of the current lane ('' outside one). */
export function linePrefix(): string {
  return lane.getStore() ?? '';
}

/** Writes `text` line by line, each with the current lane's prefix. */
export function writeLines(stream: NodeJS.WritableStream, text: string, prefix = linePrefix()): void {
  if (!prefix) stream.write(`${text}\n`);
  else
    stream.write(
      `${text
        .split('\n')
        .map((l) => prefix + l)
        .join('\n')}\n`,
    );
}

/** A line from the orchestrator itself (not from a child). */
export function say(text: string): void {
  writeLines(process.stdout, `${paint('bold', '[cairn]')} ${text}`);
}

export function warn(text: string): void {
  writeLines(process.stderr, `${paint('yellow', '[cairn] warning:')} ${text}`);
}

export function fail(text: string): void {
  writeLines(process.stderr, `${paint('red', '[cairn] error:')} ${text}`);
}

/** Removes terminal colour codes (for tails kept for error messages). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
