/**
 * The API shapes the app reads. Resource attributes and result fields are the OpenAPI documents' own
 * (generated into @cairn/client); what is left here is the app's: JSON:API document wrappers, the
 * signed-in session (`/auth/…`, outside the public document) and a report's result as a tile gets it.
 */
import type { LayoutTile, ResourceObject } from '@cairn/core';
import type { ApiSchema, DataSchema } from '@cairn/client';

export type { LayoutTile };

/** A resource's attributes as the API document types them (@cairn/client, generated from /openapi.json). */
export type DashboardAttributes = ApiSchema<'Dashboard'>['attributes'];
export type ReportAttributes = ApiSchema<'Report'>['attributes'];
export type FilterAttributes = ApiSchema<'Filter'>['attributes'];

export interface ListDocument<A> {
  data: ResourceObject<A>[];
  meta?: Record<string, unknown>;
}
export interface SingleDocument<A> {
  data: ResourceObject<A>;
  included?: ResourceObject[];
}

export interface SessionInfo {
  user: { id: string; email: string; firstname?: string | null; lastname?: string | null; role: string };
  organization: { id: string; name: string; region: string; time_zone?: string };
  permissions?: string[];
  /** The organization requires two-factor authentication and this session has none yet. */
  two_factor_enrolment_required?: boolean;
}

/** A result column as the data server describes it (the fields of its OpenAPI document the app reads). */
export type DataField = Pick<DataSchema<'Field'>, 'idx' | 'name' | 'data_type'> & { human_name?: string | null };

export type Cell = string | number | boolean | null;

/** One report's result as the dashboard page receives it. */
export type ReportData =
  | { status: 'ok'; fields: DataField[]; rows: Cell[][]; rowCount: number; dataTimestamp?: string | null }
  | { status: 'empty'; message: string }
  | { status: 'error'; message: string };
