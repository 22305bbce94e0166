-- Audit rows name their resource by its JSON:API type, always plural: three actions wrote singular
-- names ('datasource' for test_connection and refresh, 'sql_alert' for run). Old rows read the same way.
UPDATE audit_log SET resource_type = 'datasources' WHERE resource_type = 'datasource';--> statement-breakpoint
UPDATE audit_log SET resource_type = 'sql_alerts' WHERE resource_type = 'sql_alert';--> statement-breakpoint
-- The cron's retention sweep (AUDIT_LOG_KEPT_DAYS, default 365 days) reads rows by age across organizations.
CREATE INDEX IF NOT EXISTS audit_created_idx ON audit_log (created_at);
