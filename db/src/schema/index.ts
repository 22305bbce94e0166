export * from './organizations.ts';
export * from './datasources.ts';
export * from './dashboards.ts';
export * from './sharing.ts';
export * from './alerts.ts';
export * from './executions.ts';
export * from './sso.ts';
