import { ApiError } from './errors.ts';

export const REGIONS = ['eu', 'us'] as const;
export type Region = (typeof REGIONS)[number];
export function isRegion(v: string): v is Region {
  return (REGIONS as readonly string[]).includes(v);
}
export const API_VERSION = 'v2024-06-01';

/** The public base URLs of one region's servers. */
export interface RegionUrls {
  api: string;
  data: string;
}

/**
 * Where a region's servers are, from the workers' vars `API_BASE_URL_EU`, `API_BASE_URL_US`,
 * `DATA_BASE_URL_EU` and `DATA_BASE_URL_US` (wrangler.toml for production, the launcher locally).
 */
export function regionUrls(vars: object, region: Region): RegionUrls {
  const v = vars as Record<string, unknown>;
  const R = region.toUpperCase();
  const str = (name: string) => (typeof v[name] === 'string' && v[name] ? (v[name] as string).replace(/\/+$/, '') : null);
  return {
    api: str(`API_BASE_URL_${R}`) ?? `the ${R} API server`,
    data: str(`DATA_BASE_URL_${R}`) ?? `the ${R} data server`,
  };
}

/**
 * 403 `wrong_region`: the organization (or data key) belongs to `region`, and this server serves
 * `here`. The detail names the base URL to use; meta carries the region and both of its base URLs.
 * Servers send it only after the caller proved who it is (a right key, session, password or token),
 * so it tells strangers nothing.
 */
export function wrongRegion(vars: object, region: string, here: Region, server: 'api' | 'data'): ApiError {
  const known = isRegion(region);
  const urls = known ? regionUrls(vars, region) : null;
  const where = urls ? ` Use ${urls[server]}.` : '';
  return new ApiError(
    'wrong_region',
    `This organization's data lives in region "${region}"; this ${server === 'api' ? 'API' : 'data'} server serves region "${here}".${where}`,
    { meta: { region, ...(urls ? { api_base_url: urls.api, data_base_url: urls.data } : {}) } },
  );
}
