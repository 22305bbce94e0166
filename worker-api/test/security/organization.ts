import type { SecurityCaseFactory } from './cases.ts';

/** GET /organization (PATCH is for admins in the app only: src/resources/organization/organization.test.ts covers it). */
export const securityCases: SecurityCaseFactory = async () => [{ method: 'GET', path: '/organization', permissions: ['manage_users'], ownsResource: false }];
