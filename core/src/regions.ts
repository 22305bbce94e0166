export const REGIONS = ['eu', 'us'] as const;
export type Region = (typeof REGIONS)[number];
export function isRegion(v: string): v is Region {
  return (REGIONS as readonly string[]).includes(v);
}
export const API_VERSION = 'v2024-06-01';
