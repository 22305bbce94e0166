/** JSON:API 1.0 document shapes used by the API and its clients. */
export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

export interface ResourceIdentifier {
  type: string;
  id: string;
}
export interface Relationship {
  data: ResourceIdentifier | ResourceIdentifier[] | null;
  links?: { related?: string };
}
export interface ResourceObject<A = Record<string, unknown>> {
  type: string;
  id: string;
  attributes: A;
  relationships?: Record<string, Relationship>;
  links?: { self: string };
  meta?: Record<string, unknown>;
}
export interface Document<A = Record<string, unknown>> {
  data: ResourceObject<A> | ResourceObject<A>[] | null;
  included?: ResourceObject[];
  links?: Record<string, string | null>;
  meta?: Record<string, unknown>;
  jsonapi?: { version: '1.0' };
}
