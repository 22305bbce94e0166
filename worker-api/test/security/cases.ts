import type { Permission, RestrictableResourceType } from '@cairn/core';
import type { CreateOrganizationResult } from '@cairn/db/seed/organization';

/**
 * One endpoint as the shared security suite exercises it. Each resource module of the API adds a
 * file in this folder exporting `securityCases(setup)`: it creates what its endpoints need (in the
 * given organization, with the given all-permissions key) and returns the cases.
 */
export interface SecurityCase {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  /** Sent as-is; JSON:API bodies use `{ data: … }` and jsonapi: true. */
  body?: unknown;
  jsonapi?: boolean;
  /** Any one of these permissions lets the call pass the permission check. */
  permissions: Permission[];
  /**
   * When the resource can be named in a key's restriction: a key holding the permission only for
   * another resource of this type must be refused (403 or 404).
   */
  restrictedTo?: { type: RestrictableResourceType; id: string };
  /** False when the path names no resource of the organization (lists, creates): no cross-org 404 check. */
  ownsResource?: boolean;
}

export interface SecuritySetup {
  org: CreateOrganizationResult;
  /** A key with every permission, for creating fixtures through the API. */
  key: string;
}

export type SecurityCaseFactory = (s: SecuritySetup) => Promise<SecurityCase[]>;
