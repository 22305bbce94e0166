import { and, eq, type SQL } from 'drizzle-orm';
import { datasources } from '@cairn/db';
import { can, type Principal } from '../auth/principal.ts';
import { grantScope } from '../auth/access.ts';

/** Datasources of the caller's organization that View (or Manage) Datasources reaches. */
export function visibleDatasources(p: Principal): SQL {
  return and(eq(datasources.organization_id, p.organizationId), grantScope(p, 'view_datasources', { datasources: datasources.id }))!;
}

/** Credentials (username, SSH user, whether a password or key is stored) are shown only with Manage Datasources. */
export const showsCredentials = (p: Principal, datasourceId: string) => can(p, 'manage_datasources', { type: 'datasources', id: datasourceId });
