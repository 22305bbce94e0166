/** What every operator command is: its shape, what it is given, and the actor its audit entries name. */
import { userInfo } from 'node:os';
import type { DbClient } from '@cairn/db';
import type { Actor } from '@cairn/db/seed';
import type { FlagSpec } from './args.ts';

function operatorName(): string | null {
  try {
    return process.env.USER || userInfo().username || null;
  } catch {
    return null;
  }
}
/** Audit entries written by the CLI name the operating-system user who ran it. */
export const CLI_ACTOR: Actor = { type: 'cli', id: operatorName() };

export interface CommandContext {
  flags: Record<string, string | boolean>;
  positionals: string[];
  /** Opens the database on first use. */
  db(): Promise<DbClient>;
  out(line?: string): void;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  flags: Record<string, FlagSpec>;
  /** Names of the positional arguments, in order (all required). */
  positionals: string[];
  needsDatabase: boolean;
  run(ctx: CommandContext): Promise<void>;
}
