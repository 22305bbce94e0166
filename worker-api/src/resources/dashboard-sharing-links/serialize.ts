import type { dashboardSharingLinks } from '@cairn/db';
import { resource, toOne } from '../../lib/jsonapi.ts';

/**
 * The password and the signing secret never leave the server: only whether a password is set
 * (`sharing_password_set`) and whether signed parameters are required.
 */
export function serializeSharingLink(baseUrl: string, l: typeof dashboardSharingLinks.$inferSelect) {
  return resource(
    baseUrl,
    'dashboard_sharing_links',
    l.id,
    {
      name: l.name,
      description: l.description,
      token: l.token,
      toolbar_enabled: l.toolbar_enabled,
      parameters_enabled: l.parameters_enabled,
      filter_bar_enabled: l.filter_bar_enabled,
      refresh_enabled: l.refresh_enabled,
      data_download_enabled: l.data_download_enabled,
      unlimited_csv_export_enabled: l.unlimited_csv_export_enabled,
      sharing_secret_required: l.sharing_secret_required,
      sharing_password_set: l.sharing_password_hash !== null,
      color_mode: l.color_mode,
      ip_whitelist: l.ip_whitelist,
      created_at: l.created_at.toISOString(),
      updated_at: l.updated_at.toISOString(),
    },
    { dashboard: toOne('dashboards', l.dashboard_id) },
  );
}
