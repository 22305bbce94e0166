/** `npm run cairn -- <command>`: dispatch, help, error reporting and exit codes (0 ok, 1 failed, 2 usage). */
import { ApiError } from '@cairn/core';
import { createDb, type DbClient } from '@cairn/db';
import { redactUrl, resolveDatabaseUrl } from '../../db/src/dev-config.ts';
import { parseArgs, UsageError } from './args.ts';
import { COMMANDS, type Command } from './commands.ts';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Cairn operator CLI',
    '',
    'Usage: npm run cairn -- <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `npm run cairn -- <command> --help` for the options of a command.',
    'The database is DATABASE_URL, or database_url from .cairn/dev.json.',
  ].join('\n');
}

function commandHelp(c: Command): string {
  const lines = [c.summary, '', `Usage: npm run cairn -- ${c.usage}`];
  const flags = Object.entries(c.flags);
  if (flags.length > 0) {
    lines.push('', 'Options:');
    const label = (n: string, f: (typeof flags)[number][1]) => `--${n}${f.value ? ` ${f.placeholder ?? 'VALUE'}` : ''}`;
    const width = Math.max(...flags.map(([n, f]) => label(n, f).length));
    for (const [n, f] of flags) lines.push(`  ${label(n, f).padEnd(width)}  ${f.help}${f.required ? ' (required)' : ''}`);
  }
  return lines.join('\n');
}

/** Finds the command named by the leading words of argv (e.g. `key create`). */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | null {
  for (const c of COMMANDS) {
    const words = c.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { command: c, rest: argv.slice(words.length) };
  }
  return null;
}

/** The innermost cause of an error (drizzle wraps driver errors as "Failed query: …" with a cause). */
function rootCause(err: unknown): unknown {
  let e = err;
  for (let depth = 0; depth < 5 && e && typeof e === 'object' && 'cause' in e && (e as { cause?: unknown }).cause; depth++) {
    e = (e as { cause: unknown }).cause;
  }
  return e;
}

function describeError(err: unknown, url: string | undefined): string {
  if (err instanceof ApiError) {
    return [err.message, ...err.more.map((m) => m.message)].join('\n');
  }
  const root = rootCause(err) as { code?: string; message?: string } | undefined;
  const code = root?.code;
  const message = root?.message ?? String(root);
  if (code === '42P01') return 'The database has no Cairn tables yet: run `npm run db:migrate` first.';
  if (code && ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'CONNECT_TIMEOUT', '3D000', '28P01', '28000'].includes(code)) {
    return `Cannot connect to the database ${url ? redactUrl(url) : ''}: ${message}`;
  }
  return message;
}

export async function run(argv: readonly string[], out = (line = '') => console.log(line), err = (line: string) => console.error(line)): Promise<number> {
  if (argv.length === 0 || (argv.length === 1 && ['--help', '-h', 'help'].includes(argv[0]!))) {
    if (argv.length === 0) {
      err(overview());
      return EXIT_USAGE;
    }
    out(overview());
    return EXIT_OK;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = COMMANDS.filter((c) => c.name.split(' ')[0] === argv[0]);
    if (group.length > 0 && (argv.length === 1 || argv[1] === '--help' || argv[1] === '-h')) {
      const help = group.map(commandHelp).join('\n\n');
      if (argv.length > 1) {
        out(help);
        return EXIT_OK;
      }
      err(`"${argv[0]}" needs a subcommand.\n\n${help}`);
      return EXIT_USAGE;
    }
    err(`Unknown command "${argv.slice(0, 2).join(' ')}".\n`);
    err(overview());
    return EXIT_USAGE;
  }
  const { command, rest } = found;
  let client: DbClient | undefined;
  let url: string | undefined;
  try {
    const parsed = parseArgs(rest, command.flags, command.name);
    if (parsed.help) {
      out(commandHelp(command));
      return EXIT_OK;
    }
    if (parsed.positionals.length !== command.positionals.length) {
      throw new UsageError(
        command.positionals.length === 0
          ? `"${command.name}" takes no arguments (got ${parsed.positionals.join(' ')}).`
          : `"${command.name}" needs ${command.positionals.join(' ')}.`,
        command.name,
      );
    }
    await command.run({
      flags: parsed.flags,
      positionals: parsed.positionals,
      out,
      db: async () => {
        url ??= resolveDatabaseUrl();
        client ??= createDb(url, { max: 1 });
        return client;
      },
    });
    return EXIT_OK;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${e.message}\n`);
      err(commandHelp(command));
      return EXIT_USAGE;
    }
    err(`Error: ${describeError(e, url)}`);
    return EXIT_FAILED;
  } finally {
    await client?.sql.end({ timeout: 5 });
  }
}
