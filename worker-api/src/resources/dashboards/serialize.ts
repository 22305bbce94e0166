import type { Relationship } from '@cairn/core';
import type { dashboards } from '@cairn/db';
import { resource } from '../../lib/jsonapi.ts';
import { thumbnailUrl } from './thumbnail-url.ts';

type DashboardRow = typeof dashboards.$inferSelect;

/** Attributes a client sees; internal columns (organization, owner, access time) stay out. */
function dashboardAttributes(d: DashboardRow, baseUrl = '') {
  return {
    name: d.name,
    description: d.description,
    time_zone_config: d.time_zone_config,
    automatic_update_enabled: d.automatic_update_enabled,
    thumbnail_enabled: d.thumbnail_enabled,
    thumbnail_image_url: thumbnailUrl(baseUrl, d),
    thumbnail_created_at: d.thumbnail_created_at?.toISOString() ?? null,
    prewarm: d.prewarm,
    // Published = shared with users of the organization; a dashboard shared with no one is a draft.
    published: d.share_mode !== 'none',
    data_refresh_rate: d.data_refresh_rate,
    data_refresh_anchor_time: d.data_refresh_anchor_time,
    is_locked: d.is_locked,
    default_parameters: d.default_parameters,
    default_page_width: d.default_page_width,
    layout: d.layout,
    floating_enabled: d.floating_enabled,
    color_scheme: d.color_scheme,
    series_colors: d.series_colors,
    filters_configuration: d.filters_configuration,
    share_mode: d.share_mode,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

export function serializeDashboard(baseUrl: string, d: DashboardRow, relationships: Record<string, Relationship>) {
  return resource(baseUrl, 'dashboards', d.id, dashboardAttributes(d, baseUrl), relationships);
}
