import { compileSql, sha256Hex, type CompileOptions } from '@cairn/core';

/** What a compiled query is known by: the fields of compileSql's answer that decide its rows and their meaning. */
interface CompiledIdentity {
  text: string;
  values: unknown[];
  /** The session zone the query runs in (the datasource's data time zone). */
  sessionTimeZone: string;
  /** The zone in force (the dashboard's, the viewer's `tz`, or the data zone): ranges, buckets and the result's `time_zone`. */
  timeZone: string;
}

/**
 * The identity of a result (executions.params_hash, part of its data key): the datasource, the SQL as
 * sent, its bound values and both zones. Every place that reuses or looks up a result by what it
 * computes (data calls, the status object, exports and sharing links through them, alerts) hashes
 * through here, so two results that differ only in the zone they were computed for never stand in
 * for each other, even when the SQL and values are the same (ARCHITECTURE D40).
 */
function resultIdentity(datasourceId: string, compiled: CompiledIdentity): Promise<string> {
  return sha256Hex(JSON.stringify([datasourceId, compiled.text, compiled.values, compiled.sessionTimeZone, compiled.timeZone]));
}

/**
 * Compiles a query for its datasource and names its result: the one place a result's identity is
 * computed, for data calls, the status object and alerts alike (so reuse between them cannot drift).
 */
export async function compileIdentified(datasourceId: string, opts: CompileOptions) {
  const compiled = compileSql(opts);
  return { compiled, paramsHash: await resultIdentity(datasourceId, compiled) };
}
