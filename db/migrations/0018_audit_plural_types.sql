-- Audit rows name their resource by its JSON:API type, always plural: three actions wrote singular
-- names ('datasource' for test_connection and refresh, 'sql_alert' for run). Old rows read the same way.
UPDATE audit_log SET resource_type = 'datasources' WHERE resource_type = 'datasource';
UPDATE audit_log SET resource_type = 'sql_alerts' WHERE resource_type = 'sql_alert';
