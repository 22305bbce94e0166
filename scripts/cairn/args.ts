/**
 * The operator CLI's arguments, read by node:util `parseArgs` in strict mode: unknown flags are errors,
 * never ignored. What parseArgs does not check itself (a flag given twice, an empty value, a value that is
 * really the next flag, required flags) is checked here from its tokens.
 */
import { parseArgs as nodeParseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(
    message: string,
    readonly helpFor?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface FlagSpec {
  /** Takes a value (`--name value` or `--name=value`); otherwise a boolean switch. */
  value: boolean;
  required?: boolean;
  help: string;
  placeholder?: string;
}

export interface Parsed {
  flags: Record<string, string | boolean>;
  positionals: string[];
  help: boolean;
}

type NodeOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export function parseArgs(argv: readonly string[], specs: Record<string, FlagSpec>, where: string): Parsed {
  const options: NodeOptions = { help: { type: 'boolean', short: 'h' } };
  for (const [name, spec] of Object.entries(specs)) options[name] = { type: spec.value ? 'string' : 'boolean' };
  let tokens;
  try {
    ({ tokens } = nodeParseArgs({ args: [...argv], options, strict: true, allowPositionals: true, tokens: true }));
  } catch (err) {
    throw new UsageError(usageMessage(err, specs, where), where);
  }
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  let help = false;
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    if (token.name === 'help') {
      help = true;
      continue;
    }
    const { name } = token;
    if (name in flags) throw new UsageError(`Option --${name} given twice.`, where);
    if (!specs[name]!.value) {
      flags[name] = true;
      continue;
    }
    const value = token.value ?? '';
    if (token.inlineValue === false && value.startsWith('--')) throw new UsageError(`Option --${name} needs a value.`, where);
    if (!value.trim()) throw new UsageError(`Option --${name} must not be empty.`, where);
    flags[name] = value;
  }
  if (!help) {
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.required && !(name in flags)) throw new UsageError(`Missing required option --${name}.`, where);
    }
  }
  return { flags, positionals, help };
}

/** parseArgs' errors in the CLI's words (its own messages suggest `--` and name the option differently). */
function usageMessage(err: unknown, specs: Record<string, FlagSpec>, where: string): string {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1] ?? '';
  const name = option.replace(/^-+/, '').split('=')[0]!;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Unknown option ${option.split('=')[0]} for "${where}".`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return specs[name]?.value ? `Option --${name} needs a value (write --${name}=VALUE for a value that starts with "-").` : `Option --${name} takes no value.`;
  }
  return message;
}
