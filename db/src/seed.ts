/** Seeding and operator verbs (`@cairn/db/seed`): Node only (the dev seed touches the file system). */
export { type Actor, type Executor, SYSTEM_ACTOR } from './seed/audit.ts';
export {
  createOrganization,
  generateReadablePassword,
  SAMPLE_DATASOURCE_NAME,
  MIN_PASSWORD_LENGTH,
  type CreateOrganizationInput,
  type CreateOrganizationResult,
  type OrganizationRow,
  type UserRow,
  type DatasourceRow,
} from './seed/organization.ts';
export {
  SAMPLE_DASHBOARD_NAME,
  SAMPLE_REPORTS,
  type SampleDashboard,
  type DashboardRow,
  type ReportRow,
  type FilterRow,
} from './seed/sample-dashboard.ts';
export {
  createApiKey,
  listApiKeys,
  setApiKeyEnabled,
  type ApiKeyRow,
  type ApiKeySummary,
  type CreateApiKeyInput,
} from './seed/api-keys.ts';
export {
  ensureDevSeed,
  DEV_ADMIN_EMAIL,
  DEV_ORGANIZATION_NAME,
  DEV_API_KEY_NAME,
  type DevCredentials,
  type DevSeedResult,
} from './seed/dev.ts';
export { setOrganizationLimits, type OrganizationLimits } from './seed/organization-limits.ts';
export { loadSampleShop } from './sample-shop/index.ts';
export { ensureSampleDatabase, sampleDatabaseUrl, sampleDatabaseName } from './sample-shop/setup.ts';
