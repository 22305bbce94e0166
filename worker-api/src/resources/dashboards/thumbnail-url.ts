/**
 * The address clients fetch a dashboard's thumbnail from (null without one). Apart from thumbnails.ts so the
 * serializer does not import the renderer and the dashboard run (an import cycle).
 */
export function thumbnailUrl(baseUrl: string, d: { id: string; thumbnail_image_url: string | null; thumbnail_created_at: Date | null }): string | null {
  if (!d.thumbnail_image_url || !d.thumbnail_created_at) return null;
  return `${baseUrl}/dashboards/${encodeURIComponent(d.id)}/thumbnail?v=${d.thumbnail_created_at.getTime()}`;
}

/** The object key of a dashboard's thumbnail in the region's bucket. */
export const thumbnailObjectKey = (dashboardId: string) => `thumbnails/${dashboardId}`;
