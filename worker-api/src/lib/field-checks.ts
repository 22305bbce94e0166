import { z } from '@hono/zod-openapi';

/**
 * Attribute building blocks shared by the reports, filters, snippets and schedules modules.
 * Postgres text cannot hold the NUL character, so every string refuses it with a pointer instead
 * of failing in the database.
 */
export const noNul = (s: z.ZodString) => s.refine((v) => !v.includes('\u0000'), { message: 'must not contain the NUL character' });
export const text = (max: number) => noNul(z.string().max(max));
export const name = noNul(z.string().trim().min(1).max(200));
/** 24-hour HH:MM (data_refresh_anchor_time). */
export const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a 24-hour time HH:MM, e.g. 06:30' });
/** Refresh rates in minutes: 1 minute to one year. */
export const refreshRate = z.number().int().min(1).max(525_600);
export const timestamp = z.string().openapi({ format: 'date-time' });
