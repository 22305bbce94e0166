/** Per-install secrets for the local workers, generated once and kept in `<state dir>/secrets.json`. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Region } from '@cairn/core';

export interface StackSecrets {
  /** Signs data access tokens; one per region, shared by that region's API and data server. */
  DATA_TOKEN_SECRET: Record<Region, string>;
  /** Encrypts datasource credentials and signs sessions. */
  SECRET_KEY: string;
}

const hex = () => randomBytes(32).toString('hex');
const isHex = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

export function loadOrCreateSecrets(path: string): StackSecrets {
  if (existsSync(path)) {
    let parsed: Partial<StackSecrets> | undefined;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<StackSecrets>;
    } catch {
      throw new Error(`${path} is not valid JSON; delete it to generate new secrets.`);
    }
    const dts = parsed?.DATA_TOKEN_SECRET;
    if (isHex(dts?.eu) && isHex(dts?.us) && isHex(parsed?.SECRET_KEY)) {
      return { DATA_TOKEN_SECRET: { eu: dts.eu, us: dts.us }, SECRET_KEY: parsed.SECRET_KEY };
    }
    throw new Error(`${path} does not hold DATA_TOKEN_SECRET.eu/.us and SECRET_KEY as 64 hex digits; delete it to regenerate.`);
  }
  const secrets: StackSecrets = { DATA_TOKEN_SECRET: { eu: hex(), us: hex() }, SECRET_KEY: hex() };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
