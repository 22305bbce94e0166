import ipaddr from 'ipaddr.js';
import { ConnectorError } from './errors.ts';

/**
 * Where a datasource may point (issue 14). Two rules:
 * - never at Cairn's own metadata database: the same database on the same server (other databases of
 *   that server stay allowed). Host names alias (localhost, 127.0.0.1, a DNS name, Hyperdrive's proxy),
 *   so the connector asks the target who it is (`serverIdentity`) and compares with what Cairn's own
 *   database answers; the obvious cases are refused on create/update without connecting (`sameAddress`).
 * - where the operator turns it on (`BLOCK_PRIVATE_NETWORKS`, on in production), never at loopback,
 *   private, link-local, CGNAT, unique-local or other non-public addresses, however the literal is
 *   written (`0x7f.1`, `127.1`, `2130706433`, `[::ffff:127.0.0.1]`) or whatever a name resolves to.
 */

/** A host literal as an address: brackets, a zone id and one trailing dot are dropped; null for a name. */
function parseAddress(host: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  h = h.replace(/%.*$/, '');
  if (h.endsWith('.') && !h.includes(':')) h = h.slice(0, -1);
  try {
    return ipaddr.process(h);
  } catch {
    return null;
  }
}

/** The IPv4 address an IPv6 one carries (NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = a.range();
  const b = a.toByteArray();
  if (range === 'rfc6052') return new ipaddr.IPv4(b.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(b.slice(2, 6));
  return null;
}

/** Names that mean this machine whatever a resolver says (RFC 6761). */
const LOCAL_NAME = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)\.?$|\.localhost\.?$/i;

/** The range of a non-public address (`loopback`, `private`, `linkLocal` …), or null for a public one. */
function nonPublicRange(a: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  if (a.kind() === 'ipv6') {
    const v4 = embeddedV4(a as ipaddr.IPv6);
    if (v4) return nonPublicRange(v4);
  }
  const range = a.range();
  return range === 'unicast' ? null : range;
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

function refusal(host: string, what: string): string {
  return `${host} is ${what}; this Cairn server does not connect to private or loopback networks (BLOCK_PRIVATE_NETWORKS). Use the database's public address, or an agent.`;
}

/**
 * Why the host may not be used under BLOCK_PRIVATE_NETWORKS, judged from the text alone (a literal
 * address in any form, or a name that always means this machine); null when it may, or when only
 * resolving the name can tell (`resolvedRefusal`).
 */
export function literalRefusal(host: string): string | null {
  if (LOCAL_NAME.test(host.trim())) return refusal(host, 'this machine (loopback)');
  const a = parseAddress(host);
  if (!a) return null;
  const range = nonPublicRange(a);
  return range ? refusal(host, `${RANGE_WORDS[range] ?? `an address of range ${range}`} (${a.toString()})`) : null;
}

/**
 * Resolves a name to its addresses: [] when the name has none (or the lookup failed or was too slow),
 * null when this runtime cannot resolve names at all.
 */
export type Resolver = (name: string) => Promise<string[] | null>;

/** Longest wait for a name's addresses. */
const RESOLVE_MS = 3_000;

/**
 * Resolves through `node:dns` where the runtime has it (Node; workerd, whose module asks
 * cloudflare-dns.com over HTTPS): [] for a failed lookup or one slower than RESOLVE_MS, null where
 * the module is missing.
 */
const systemResolver: Resolver = async (name) => {
  type Dns = { promises: { lookup(name: string, opts: { all: true; verbatim: boolean }): Promise<{ address: string }[]> } };
  let dns: Dns;
  try {
    // (Typed by hand: this project does not load Node's types.)
    dns = (await import('node:dns' as string)) as Dns;
  } catch {
    return null;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const late = new Promise<[]>((resolve) => {
      timer = setTimeout(() => resolve([]), RESOLVE_MS);
    });
    const found = await Promise.race([dns.promises.lookup(name, { all: true, verbatim: true }), late]);
    return found.map((f) => f.address);
  } catch {
    return [];
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
};

/** The first non-public address among a name's addresses, with its range. */
function firstNonPublic(addresses: string[]): { a: ipaddr.IPv4 | ipaddr.IPv6; range: string } | null {
  for (const address of addresses) {
    const a = parseAddress(address);
    const range = a ? nonPublicRange(a) : null;
    if (range) return { a: a!, range };
  }
  return null;
}

const nameRefusal = (host: string, hit: { a: ipaddr.IPv4 | ipaddr.IPv6; range: string }) =>
  refusal(host, `a name for ${RANGE_WORDS[hit.range] ?? `an address of range ${hit.range}`} (${hit.a.toString()})`);

/**
 * The refusal for a host under BLOCK_PRIVATE_NETWORKS, after resolving a name: refused when any of its
 * addresses is not public (a name that resolves to a public and a private address could be answered
 * either way by the next lookup). A name that does not resolve passes (create/update: the database may
 * not exist yet); connections go to an address checked by `dialAddress`, which refuses such a name.
 */
export async function resolvedRefusal(host: string, resolve: Resolver = systemResolver): Promise<string | null> {
  const literal = literalRefusal(host);
  if (literal || parseAddress(host)) return literal;
  const hit = firstNonPublic((await resolveCached(host, resolve)) ?? []);
  return hit ? nameRefusal(host, hit) : null;
}

/** How long a name's checked addresses are reused (per isolate), and how many names are kept. */
const RESOLVED_TTL_MS = 60_000;
const RESOLVED_MAX = 500;
const resolvedNames = new Map<string, { until: number; addresses: Promise<string[] | null>; resolve: Resolver }>();

/** A name's addresses, asked once per RESOLVED_TTL_MS and resolver (failed or empty lookups are not kept). */
function resolveCached(host: string, resolve: Resolver): Promise<string[] | null> {
  const name = host.trim().replace(/\.$/, '').toLowerCase();
  const now = Date.now();
  const hit = resolvedNames.get(name);
  if (hit && hit.until > now && hit.resolve === resolve) return hit.addresses;
  if (resolvedNames.size >= RESOLVED_MAX) resolvedNames.clear();
  const addresses = resolve(name).then(
    (found) => {
      if (!found?.length) resolvedNames.delete(name);
      return found;
    },
    (err) => {
      resolvedNames.delete(name);
      throw err;
    },
  );
  resolvedNames.set(name, { until: now + RESOLVED_TTL_MS, addresses, resolve });
  return addresses;
}

/**
 * Where a connection to `host` goes (issue 14, DNS rebinding). Without BLOCK_PRIVATE_NETWORKS: the
 * host itself, with no lookup. With it: a literal address as the checked address reads it (refused
 * when not public), and a name resolved once (reused for RESOLVED_TTL_MS), refused when any address is
 * not public or when it has none, and otherwise pinned to one of them (IPv4 first), so the connection goes to
 * the address that was checked and a second answer of the name server never reaches the socket. TLS
 * still checks the certificate against the name (the connector's `serverName`). Only a runtime without
 * a resolver (null) connects by name, judged on the text alone.
 */
export async function dialAddress(policy: Pick<TargetPolicy, 'blockPrivate' | 'resolve'>, host: string): Promise<string> {
  if (!policy.blockPrivate) return host;
  const literal = literalRefusal(host);
  if (literal) throw refusedNetwork(literal);
  const parsed = parseAddress(host);
  if (parsed) return parsed.toString();
  const addresses = await resolveCached(host, policy.resolve ?? systemResolver);
  if (addresses === null) return host;
  if (!addresses.length) {
    throw refusedNetwork(`${host} could not be resolved to an address; this Cairn server connects only to addresses it has checked (BLOCK_PRIVATE_NETWORKS).`);
  }
  const hit = firstNonPublic(addresses);
  if (hit) throw refusedNetwork(nameRefusal(host, hit));
  // All were checked; an IPv4 one is preferred (reachable from more networks), else the first.
  const parsedAll = addresses.map((a) => parseAddress(a)!).filter(Boolean);
  return (parsedAll.find((a) => a.kind() === 'ipv4') ?? parsedAll[0]!).toString();
}

/** What a Postgres server says about itself; two connections to one database answer alike. */
export interface ServerIdentity {
  database: string;
  /** pg_control_system().system_identifier: shared by a server and its physical replicas (null where not readable). */
  system: string | null;
  /** pg_postmaster_start_time(), to microseconds: tells servers apart where the identifier is not readable. */
  started: string | null;
  /** inet_server_addr() and inet_server_port() (null address on a Unix socket). */
  addr: string | null;
  port: number | null;
}

/** One statement: readable by any role on PostgreSQL 10+ (pg_control_system costs ~2 µs on PG 15). */
const IDENTITY_SQL = `select pg_catalog.current_database()::text as database,
  (select system_identifier::text from pg_catalog.pg_control_system()) as system,
  pg_catalog.pg_postmaster_start_time()::text as started,
  pg_catalog.host(pg_catalog.inet_server_addr()) as addr, pg_catalog.inet_server_port() as port`;
/** The same without the control data, for servers where pg_control_system was revoked. */
const IDENTITY_SQL_NO_CONTROL = `select pg_catalog.current_database()::text as database, null::text as system,
  pg_catalog.pg_postmaster_start_time()::text as started,
  pg_catalog.host(pg_catalog.inet_server_addr()) as addr, pg_catalog.inet_server_port() as port`;

/** Runs one statement and returns its rows. */
export type OwnQuery = (text: string) => Promise<Record<string, unknown>[]>;

/** Asks a server who it is (IDENTITY_SQL, or without the control data where that is not allowed). */
export async function serverIdentity(query: OwnQuery): Promise<ServerIdentity> {
  let rows: Record<string, unknown>[];
  try {
    rows = await query(IDENTITY_SQL);
  } catch (err) {
    if ((err as { code?: string }).code !== '42501') throw err;
    rows = await query(IDENTITY_SQL_NO_CONTROL);
  }
  const r = rows[0] ?? {};
  return {
    database: String(r.database ?? ''),
    system: r.system == null ? null : String(r.system),
    started: r.started == null ? null : String(r.started),
    addr: r.addr == null ? null : String(r.addr),
    port: r.port == null ? null : Number(r.port),
  };
}

/** Whether two identities are the same database of the same server (or of a physical replica of it). */
export function sameDatabase(a: ServerIdentity, b: ServerIdentity): boolean {
  if (!a.database || a.database !== b.database) return false;
  if (a.system && b.system) return a.system === b.system;
  return !!a.started && a.started === b.started;
}

const isLoopback = (host: string) => LOCAL_NAME.test(host.trim()) || parseAddress(host)?.range() === 'loopback';

/**
 * The create/update check without connecting: the datasource names Cairn's own database at an address
 * that is plainly the metadata server's (the address and port it reports, loopback for loopback, or
 * the address Cairn itself connects to, such as Hyperdrive's local proxy).
 */
export function sameAddress(
  target: { host: string; port: number; database: string },
  own: ServerIdentity,
  ownClient?: { host: string; port: number } | null,
): boolean {
  if (ownClient && target.port === ownClient.port && (target.host === ownClient.host || (isLoopback(target.host) && isLoopback(ownClient.host)))) {
    return true;
  }
  if (target.database !== own.database) return false;
  if (own.port !== null && target.port !== own.port) return false;
  // No address: Cairn reaches its server through a Unix socket, i.e. on this machine.
  if (own.addr === null) return isLoopback(target.host);
  if (isLoopback(target.host) && isLoopback(own.addr)) return true;
  const a = parseAddress(target.host);
  const b = parseAddress(own.addr);
  return !!a && !!b && a.kind() === b.kind() && a.toString() === b.toString();
}

export const OWN_DATABASE_MESSAGE =
  "This datasource points at Cairn's own metadata database, which no datasource may reach. Point it at another database (other databases on the same server are allowed).";

const refusedOwnDatabase = () => new ConnectorError('refused', OWN_DATABASE_MESSAGE, { refused: 'metadata_database' });
const refusedNetwork = (message: string) => new ConnectorError('refused', message, { refused: 'private_network' });

/** Where the connectors may connect (built per worker by engine/target-policy.ts). */
export interface TargetPolicy {
  /** BLOCK_PRIVATE_NETWORKS: loopback, private and other non-public addresses are refused. */
  blockPrivate: boolean;
  /** Cairn's own database as its server describes it (asked once per isolate). */
  ownIdentity(): Promise<ServerIdentity>;
  /** The address Cairn itself connects to (Hyperdrive's; locally its proxy), refused for datasources outright. */
  ownClient: { host: string; port: number } | null;
  /** Name resolution for BLOCK_PRIVATE_NETWORKS (tests substitute their own). */
  resolve?: Resolver;
}

/** SQLSTATEs with which a wire-compatible server that is not a full PostgreSQL (Redshift, CrateDB) declines the identity statement. */
const NOT_POSTGRES = new Set(['42883', '0A000', '42P01', '42704']);

/**
 * The check a Postgres-family connector makes before each operation on a connection it opened: the
 * server's database is not Cairn's own. (The network rule was applied before connecting: the
 * connection goes to the address `dialAddress` checked.) Cost: one statement per operation.
 */
export async function checkTarget(policy: TargetPolicy, query: OwnQuery): Promise<void> {
  let target: ServerIdentity;
  try {
    target = await serverIdentity(query);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_POSTGRES.has(code)) return;
    throw err;
  }
  if (sameDatabase(target, await policy.ownIdentity())) throw refusedOwnDatabase();
}
