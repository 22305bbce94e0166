import { DurableObject } from 'cloudflare:workers';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket holds one token again (0 when allowed). */
  retryAfter: number;
  /** Seconds until the bucket is full. */
  reset: number;
}

/**
 * A token bucket per API key (or signed-in user), one Durable Object instance each
 * (`idFromName('ratelimit::<key id>')`). State lives in the object's SQLite storage so a restart
 * keeps the budget; an alarm drops the state of idle buckets.
 */
export class RateLimiter extends DurableObject {
  private tokens: number | null = null;
  private updated = 0;
  private alarmSet = false;

  async take(rate: number, burst: number, now = Date.now()): Promise<RateDecision> {
    if (this.tokens === null) {
      const saved = await this.ctx.storage.get<{ tokens: number; updated: number }>('bucket');
      this.tokens = saved?.tokens ?? burst;
      this.updated = saved?.updated ?? now;
    }
    const elapsed = Math.max(0, now - this.updated) / 1000;
    this.tokens = Math.min(burst, this.tokens + elapsed * rate);
    this.updated = now;
    let allowed = false;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      allowed = true;
    }
    this.ctx.storage.put('bucket', { tokens: this.tokens, updated: this.updated });
    // Idle buckets are dropped about an hour after they were first used (wall-clock time, whatever
    // `now` says); set once per instance, not on every request.
    if (!this.alarmSet) {
      this.alarmSet = true;
      await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
    }
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(this.tokens),
      retryAfter: allowed ? 0 : Math.ceil((1 - this.tokens) / rate),
      reset: Math.ceil((burst - this.tokens) / rate),
    };
  }

  /**
   * Takes up to `want` tokens at once (at least one when the bucket has one) and gives back
   * `returned` unused tokens of an earlier lease, so a busy caller needs one call per lease instead
   * of one per request. `granted` 0 means refused.
   */
  async lease(rate: number, burst: number, want: number, returned = 0, now = Date.now()): Promise<RateDecision & { granted: number }> {
    if (this.tokens === null) {
      const saved = await this.ctx.storage.get<{ tokens: number; updated: number }>('bucket');
      this.tokens = saved?.tokens ?? burst;
      this.updated = saved?.updated ?? now;
    }
    const elapsed = Math.max(0, now - this.updated) / 1000;
    this.tokens = Math.min(burst, this.tokens + elapsed * rate + Math.max(0, returned));
    this.updated = now;
    const granted = Math.max(0, Math.min(Math.floor(this.tokens), Math.max(1, Math.floor(want))));
    this.tokens -= granted;
    this.ctx.storage.put('bucket', { tokens: this.tokens, updated: this.updated });
    if (!this.alarmSet) {
      this.alarmSet = true;
      await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
    }
    return {
      allowed: granted > 0,
      granted,
      limit: burst,
      remaining: Math.floor(this.tokens),
      retryAfter: granted > 0 ? 0 : Math.ceil((1 - this.tokens) / rate),
      reset: Math.ceil((burst - this.tokens) / rate),
    };
  }

  /**
   * Returns `n` tokens of earlier takes that turned out not to count (a sign-in with the right
   * password), up to the burst: only failed attempts then use up the budget.
   */
  async giveBack(rate: number, burst: number, n = 1, now = Date.now()): Promise<void> {
    if (this.tokens === null) {
      const saved = await this.ctx.storage.get<{ tokens: number; updated: number }>('bucket');
      this.tokens = saved?.tokens ?? burst;
      this.updated = saved?.updated ?? now;
    }
    const elapsed = Math.max(0, now - this.updated) / 1000;
    this.tokens = Math.min(burst, this.tokens + elapsed * rate + Math.max(0, n));
    this.updated = now;
    this.ctx.storage.put('bucket', { tokens: this.tokens, updated: this.updated });
  }

  override async alarm(): Promise<void> {
    // Still in use within the last hour: keep the bucket and look again later.
    if (this.tokens !== null && Date.now() - this.updated < 3_600_000) {
      await this.ctx.storage.setAlarm(Date.now() + 3_600_000);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.tokens = null;
    this.alarmSet = false;
  }
}
