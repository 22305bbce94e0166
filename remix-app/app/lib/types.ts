/**
 * The API shapes the app reads. Resource attributes and result fields are the OpenAPI documents' own
 * (generated into @cairn/client); what is left here is the app's: JSON:API document wrappers, the
 * signed-in session (`/auth/…`, outside the public document) and a report's result as a tile gets it.
 */
import type { LayoutTile, ResourceObject } from '@cairn/core';
import type { ApiPaths, ApiSchema, DataSchema } from '@cairn/client';

export type { LayoutTile };

/** A resource's attributes as the API document types them (@cairn/client, generated from /openapi.json). */
export type DashboardAttributes = ApiSchema<'Dashboard'>['attributes'];
export type ReportAttributes = ApiSchema<'Report'>['attributes'];
export type FilterAttributes = ApiSchema<'Filter'>['attributes'];
/** The body of answer `Status` of `Method Path` (JSON:API or JSON), as the API document types it. */
export type ApiAnswer<
  Path extends keyof ApiPaths,
  Method extends 'get' | 'post' | 'patch' | 'delete',
  Status extends number = 200,
> = ApiPaths[Path][Method] extends {
  responses: { [S in Status]: { content: infer Content } };
}
  ? Content[keyof Content]
  : never;
/** The attributes the create call of a collection (POST `Path`, a JSON:API body) takes: the writable ones. */
export type CreateAttributes<Path extends keyof ApiPaths> = ApiPaths[Path] extends { post: { requestBody?: infer Body } }
  ? NonNullable<NonNullable<Body> extends { content: { 'application/vnd.api+json': { data: { attributes?: infer A } } } } ? A : never>
  : never;

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
