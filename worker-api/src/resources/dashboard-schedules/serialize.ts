import { isTimeZone, nextRun, ScheduleError } from '@cairn/core';
import type { dashboardSchedules } from '@cairn/db';
import { resource, toOne } from '../../lib/jsonapi.ts';

type ScheduleRow = typeof dashboardSchedules.$inferSelect;

/** The zone a schedule's times are read in: its own, else the organization's. */
export function zoneOf(s: Pick<ScheduleRow, 'time_zone'>, orgTimeZone: string): string {
  const zone = s.time_zone ?? orgTimeZone;
  return isTimeZone(zone) ? zone : 'UTC';
}

/** The next send time after `now`, or null (disabled, or a stored string that no longer parses). */
export function nextSendAt(s: Pick<ScheduleRow, 'schedule' | 'time_zone'>, orgTimeZone: string, now = new Date()): Date | null {
  try {
    return nextRun(s.schedule, zoneOf(s, orgTimeZone), now);
  } catch (e) {
    if (e instanceof ScheduleError) return null;
    throw e;
  }
}

export function serializeSchedule(baseUrl: string, s: ScheduleRow, orgTimeZone: string) {
  return resource(
    baseUrl,
    'dashboard_schedules',
    s.id,
    {
      name: s.name,
      emails: s.emails,
      cc_emails: s.cc_emails,
      bcc_emails: s.bcc_emails,
      attach_as: s.attach_as,
      schedule: s.schedule,
      time_zone: s.time_zone,
      subject_text: s.subject_text,
      body_text: s.body_text,
      send_via: s.send_via ?? 'email',
      page_width: s.page_width,
      parameters: s.parameters,
      // Computed when read, so it follows changes of the organization's time zone.
      next_send_at: nextSendAt(s, orgTimeZone)?.toISOString() ?? null,
      last_sent_at: s.last_sent_at?.toISOString() ?? null,
      created_at: s.created_at.toISOString(),
      updated_at: s.updated_at.toISOString(),
    },
    {
      dashboard: toOne('dashboards', s.dashboard_id),
      report: toOne('reports', s.report_id),
    },
  );
}
