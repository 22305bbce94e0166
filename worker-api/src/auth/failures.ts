import { ApiError } from '@cairn/core';
import type ipaddr from 'ipaddr.js';
import type { RateLimiter } from '../durable/rate-limiter.ts';
import { parseAddress } from '../resources/public-links/ip-match.ts';
import { rateLimiterStub } from '../durable/stubs.ts';

/**
 * Budgets of failures (wrong passwords, unknown API keys, invalid data tokens), kept in RateLimiter
 * objects (one per bucket name). Used by both workers: the data server imports this module and
 * exports its own RateLimiter class.
 *
 * The client address is `CF-Connecting-IP`, the header Cloudflare's edge writes on every request it
 * passes to a worker (whatever the client sent under that name is replaced), and which the web app
 * copies onto its service-binding calls from its own request (remix-app/app/lib/client-address.server.ts).
 * `X-Forwarded-For` and the like are never read: anyone can write them. The budget of an IPv6 client
 * is its /64, the network one subscriber gets. A request without an address (only callers that did
 * not pass the edge: the tests, a misconfigured proxy) has no per-address budget at all — never one
 * shared "unknown" bucket that one stranger could empty for everyone — and is bounded by the budgets
 * that do not depend on the address (per e-mail, per link).
 */
export function clientAddress(header: string | null | undefined): string | null {
  const text = header?.trim();
  if (!text || text.length > 64) return null;
  const a = parseAddress(text);
  if (!a) return null;
  if (a.kind() === 'ipv4') return a.toString();
  // The first four 16-bit groups: the /64.
  return `${(a as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

export interface Budget {
  /** Bucket name, e.g. `signin:<email>:<address>`. */
  bucket: string;
  /** Tokens per second and the bucket's size. */
  rate: number;
  burst: number;
}

type Limiters = DurableObjectNamespace<RateLimiter>;
const stub = (ns: Limiters, bucket: string) => rateLimiterStub({ RATE_LIMITER: ns }, bucket);

export interface Spent {
  /** Gives the tokens back: the attempt turned out right, so it does not count as a failure. */
  refund(): Promise<void>;
}

/**
 * Takes one token from each budget before an attempt is checked. When any budget is empty the attempt
 * is refused (429, `Retry-After` in `meta.retry_after`) without being checked, and the tokens taken
 * from the others are given back. A right attempt gives its tokens back (`refund`), so only failures
 * use the budgets up.
 */
export async function spendAttempt(ns: Limiters, budgets: Budget[], what: string): Promise<Spent> {
  const decisions = await Promise.all(budgets.map((b) => stub(ns, b.bucket).take(b.rate, b.burst)));
  const refund = (only: (i: number) => boolean) =>
    Promise.all(budgets.map((b, i) => (only(i) ? stub(ns, b.bucket).giveBack(b.rate, b.burst) : undefined))).then(() => {});
  if (decisions.some((d) => !d.allowed)) {
    await refund((i) => decisions[i]!.allowed);
    throw tooMany(what, Math.max(...decisions.map((d) => d.retryAfter)));
  }
  return { refund: () => refund(() => true) };
}

function tooMany(what: string, retryAfter: number): ApiError {
  const s = Math.max(1, retryAfter);
  return new ApiError('rate_limited', `Too many ${what}; try again in ${s} s.`, { meta: { retry_after: s } });
}

/**
 * Failures of credentials that cannot be guessed (API keys, data tokens: 128 bits or more, HMAC
 * signed) counted per address, after the check: a right credential costs nothing, so busy callers
 * never wait for a RateLimiter object. Once an address's budget is empty this isolate refuses its
 * requests before checking them until the budget has a token again; another isolate refuses it at its
 * first failure. It bounds the noise and lookups a stranger causes, not guessing, which the
 * credentials' size already rules out.
 */
export class FailureThrottle {
  private blocked = new Map<string, number>();

  constructor(
    private readonly prefix: string,
    private readonly rate: number,
    private readonly burst: number,
    private readonly what: string,
  ) {}

  /** Throws 429 when this isolate knows the address is out of budget. */
  check(address: string | null, now = Date.now()): void {
    if (!address) return;
    const until = this.blocked.get(address);
    if (until === undefined) return;
    if (until > now) throw tooMany(this.what, Math.ceil((until - now) / 1000));
    this.blocked.delete(address);
  }

  /** Counts one failure of the address: the 429 to answer instead once its budget is empty, else null. */
  async count(ns: Limiters, address: string | null): Promise<ApiError | null> {
    if (!address) return null;
    const d = await stub(ns, `${this.prefix}:${address}`).take(this.rate, this.burst);
    if (d.allowed) return null;
    this.blocked.set(address, Date.now() + Math.max(1, d.retryAfter) * 1000);
    if (this.blocked.size > 10_000) this.blocked.delete(this.blocked.keys().next().value!);
    return tooMany(this.what, d.retryAfter);
  }

  /** Counts one failure of the address; throws 429 instead of `failure` once the budget is empty. */
  async fail(ns: Limiters, address: string | null, failure: ApiError): Promise<never> {
    throw (await this.count(ns, address)) ?? failure;
  }
}
