import { ApiError, isTimeZone, parseSchedule, SCHEDULE_ATTACH_AS as ATTACH_AS, ScheduleError } from '@cairn/core';
import { MAX_RECIPIENTS } from './schema.ts';

const EMAIL = /^[^\s@,;<>()"]+@[^\s@,;<>()".]+(\.[^\s@,;<>()".]+)+$/;
const at = (name: string) => ({ source: { pointer: `/data/attributes/${name}` } });

/**
 * A comma-separated address list: each address trimmed and valid, none twice, at most
 * MAX_RECIPIENTS. Returns the list joined with ", " (null for an empty optional list).
 */
export function recipients(raw: string | null, attribute: string, required: boolean): string | null {
  const list = (raw ?? '').split(',').map((s) => s.trim());
  if (list.length === 1 && list[0] === '') {
    if (required) throw new ApiError('invalid_attribute', `${attribute} needs at least one address.`, at(attribute));
    return null;
  }
  const seen = new Set<string>();
  list.forEach((address, i) => {
    if (address === '') throw new ApiError('invalid_attribute', `${attribute}: entry ${i + 1} is empty (two commas in a row?).`, at(attribute));
    if (address.length > 254 || !EMAIL.test(address))
      throw new ApiError('invalid_attribute', `${attribute}: "${address}" is not a valid e-mail address.`, at(attribute));
    if (seen.has(address.toLowerCase())) throw new ApiError('invalid_attribute', `${attribute}: "${address}" is listed twice.`, at(attribute));
    seen.add(address.toLowerCase());
  });
  if (list.length > MAX_RECIPIENTS) {
    throw new ApiError('invalid_attribute', `${attribute} lists ${list.length} addresses; at most ${MAX_RECIPIENTS} are allowed.`, at(attribute));
  }
  return list.join(', ');
}

/** attach_as: a comma list of the known formats, each at most once; returned without spaces. */
export function attachAs(raw: string): string {
  const list = raw.split(',').map((s) => s.trim());
  const seen = new Set<string>();
  for (const f of list) {
    if (!(ATTACH_AS as readonly string[]).includes(f)) {
      throw new ApiError('invalid_attribute', `attach_as: "${f}" is not a format; use a comma list of ${ATTACH_AS.join(', ')}.`, at('attach_as'));
    }
    if (seen.has(f)) throw new ApiError('invalid_attribute', `attach_as: "${f}" is listed twice.`, at('attach_as'));
    seen.add(f);
  }
  return list.join(',');
}

/** The schedule string, trimmed, after checking it against the grammar (core/src/schedule.ts). */
export function scheduleString(raw: string): string {
  try {
    parseSchedule(raw);
  } catch (e) {
    if (e instanceof ScheduleError) throw new ApiError('invalid_attribute', `schedule: ${e.message}`, at('schedule'));
    throw e;
  }
  return raw.trim();
}

export function timeZone(raw: string | null): string | null {
  if (raw === null) return null;
  if (!isTimeZone(raw)) throw new ApiError('invalid_attribute', `"${raw}" is not a time zone; use an IANA name such as Europe/Berlin.`, at('time_zone'));
  return raw;
}

/** Runs each check, collecting every problem, and returns the normalized values of those that passed. */
export function collect(checks: [string, () => unknown][]): { values: Record<string, unknown>; problems: ApiError[] } {
  const values: Record<string, unknown> = {};
  const problems: ApiError[] = [];
  for (const [name, check] of checks) {
    try {
      values[name] = check();
    } catch (e) {
      if (e instanceof ApiError) problems.push(e);
      else throw e;
    }
  }
  return { values, problems };
}
