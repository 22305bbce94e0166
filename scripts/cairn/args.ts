/** A small, strict argument parser for the operator CLI: unknown flags are errors, never ignored. */

export class UsageError extends Error {
  constructor(message: string, readonly helpFor?: string) {
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

export function parseArgs(argv: readonly string[], specs: Record<string, FlagSpec>, where: string): Parsed {
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg.length > 1) throw new UsageError(`Unknown option ${arg} for "${where}".`, where);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = specs[name];
    if (!spec) throw new UsageError(`Unknown option --${name} for "${where}".`, where);
    if (name in flags) throw new UsageError(`Option --${name} given twice.`, where);
    if (!spec.value) {
      if (eq !== -1) throw new UsageError(`Option --${name} takes no value.`, where);
      flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`Option --${name} needs a value.`, where);
      i++;
    }
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
