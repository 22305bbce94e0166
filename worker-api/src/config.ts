/**
 * The API worker's operator settings, read from its string variables once per `env` object: each has
 * its default, its lower bound and its unit here and nowhere else. A value that is not a number of the
 * right kind is reported once (console.error, with the variable's name) and the default is used, so a
 * typo never turns into NaN deep inside a rate limit or a timeout. Bindings, secrets and URLs stay on
 * `env`; the SMTP settings are read by mail/mailer.ts, which answers a bad one as the reason mail is off.
 */
export interface Settings {
  /** How long an isolate trusts a looked-up API key or session (0: every request asks the database). */
  authCacheMs: number;
  /** Requests per second a key may make, and the bucket it may burst to. */
  rateLimitRps: number;
  rateLimitBurst: number;
  /** How long a keyed read is served without asking for the organization's version (D25). */
  readCacheTrustMs: number;
  /** How long a status poll's answer is reused for the same caller and body (0: never, D26). */
  pollReuseMs: number;
  /** READ_CACHE=off turns the read cache off (benchmarks of the bare path). */
  readCacheOff: boolean;
  /** Whether datasources and SSO fetches may not reach private and loopback addresses. */
  blockPrivateNetworks: boolean;
  /** A statement's timeout on the datasource, and the guard over a whole execution. */
  statementTimeoutMs: number;
  executionGuardMs: number;
  /** How long an unfinished execution stays `running` without its runner renewing it (D54). */
  executionLeaseMs: number;
  /** Seconds a failed job message waits before its next attempt, per attempt. */
  jobRetryDelayS: number;
  /** Connections of one DbPool object. */
  dbPoolConnections: number;
  /** Days the audit log keeps a row (0: every row is kept). */
  auditLogKeptDays: number;
}

type Raw = Partial<Record<string, string | undefined>>;

interface NumberRule {
  name: string;
  fallback: number;
  min: number;
  integer?: boolean;
}

const NUMBERS: Record<Exclude<keyof Settings, 'readCacheOff' | 'blockPrivateNetworks'>, NumberRule> = {
  authCacheMs: { name: 'AUTH_CACHE_MS', fallback: 2000, min: 0 },
  rateLimitRps: { name: 'RATE_LIMIT_RPS', fallback: 20, min: 0.001 },
  rateLimitBurst: { name: 'RATE_LIMIT_BURST', fallback: 200, min: 1 },
  readCacheTrustMs: { name: 'READ_CACHE_TRUST_MS', fallback: 100, min: 0 },
  pollReuseMs: { name: 'POLL_REUSE_MS', fallback: 250, min: 0 },
  statementTimeoutMs: { name: 'STATEMENT_TIMEOUT_MS', fallback: 120_000, min: 1 },
  executionGuardMs: { name: 'EXECUTION_GUARD_MS', fallback: 10 * 60_000, min: 1 },
  executionLeaseMs: { name: 'EXECUTION_LEASE_MS', fallback: 45_000, min: 1_000 },
  jobRetryDelayS: { name: 'JOB_RETRY_DELAY_S', fallback: 30, min: 0 },
  dbPoolConnections: { name: 'DB_POOL_CONNECTIONS', fallback: 6, min: 1, integer: true },
  auditLogKeptDays: { name: 'AUDIT_LOG_KEPT_DAYS', fallback: 365, min: 0, integer: true },
};

/** The defaults, for code and docs that name them. */
export const DEFAULTS = Object.fromEntries(Object.entries(NUMBERS).map(([k, r]) => [k, r.fallback])) as Record<keyof typeof NUMBERS, number>;

const ON = /^(1|true|on|yes)$/i;

/** Reads the settings from a set of variables (pure: the reports of bad values are returned). */
export function readSettings(raw: Raw): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  const numbers = {} as Record<keyof typeof NUMBERS, number>;
  for (const [key, rule] of Object.entries(NUMBERS) as [keyof typeof NUMBERS, NumberRule][]) {
    const text = raw[rule.name]?.trim();
    if (!text) {
      numbers[key] = rule.fallback;
      continue;
    }
    const n = Number(text);
    if (!Number.isFinite(n) || n < rule.min || (rule.integer && !Number.isInteger(n))) {
      problems.push(
        `${rule.name}=${JSON.stringify(text)} is not ${rule.integer ? 'a whole number' : 'a number'} of at least ${rule.min}; using ${rule.fallback}`,
      );
      numbers[key] = rule.fallback;
    } else {
      numbers[key] = n;
    }
  }
  return {
    settings: {
      ...numbers,
      readCacheOff: raw.READ_CACHE?.trim().toLowerCase() === 'off',
      blockPrivateNetworks: ON.test(raw.BLOCK_PRIVATE_NETWORKS?.trim() ?? ''),
    },
    problems,
  };
}

const cache = new WeakMap<object, Settings>();

/** The settings of this worker's `env` (or any object of its variables), read on first use and kept with the object. */
export function settingsOf(env: object): Settings {
  let s = cache.get(env);
  if (!s) {
    const read = readSettings(env as unknown as Raw);
    for (const p of read.problems) console.error(`settings: ${p}`);
    s = read.settings;
    cache.set(env, s);
  }
  return s;
}
