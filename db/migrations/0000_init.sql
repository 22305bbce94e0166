CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"key_id" text NOT NULL,
	"secret_hash" text NOT NULL,
	"permissions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by_user_id" text,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text,
	"request_id" text,
	"details" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"region" text DEFAULT 'eu' NOT NULL,
	"plan" text DEFAULT 'business' NOT NULL,
	"plan_analyst_seats" integer DEFAULT 10 NOT NULL,
	"plan_datasources" integer DEFAULT 10 NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_group_members" (
	"organization_id" text NOT NULL,
	"user_group_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_group_members_user_group_id_user_id_pk" PRIMARY KEY("user_group_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "user_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"built_in_behavior" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"email" text NOT NULL,
	"firstname" text DEFAULT '' NOT NULL,
	"lastname" text DEFAULT '' NOT NULL,
	"role" text DEFAULT 'viewer' NOT NULL,
	"password_hash" text,
	"otp_app_enabled" boolean DEFAULT false NOT NULL,
	"otp_phone_enabled" boolean DEFAULT false NOT NULL,
	"time_zone" text,
	"invited_by_user_id" text,
	"invitation_token_hash" text,
	"invitation_created_at" timestamp with time zone,
	"invitation_accepted_at" timestamp with time zone,
	"deactivated_at" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "datasource_agent_links" (
	"organization_id" text NOT NULL,
	"datasource_id" text NOT NULL,
	"agent_id" text NOT NULL,
	CONSTRAINT "datasource_agent_links_datasource_id_agent_id_pk" PRIMARY KEY("datasource_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "datasource_agents" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"version" text,
	"address" text,
	"connected" boolean DEFAULT false NOT NULL,
	"active_queries" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "datasources" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"database_type" text NOT NULL,
	"connection_mode" text NOT NULL,
	"is_sample" boolean DEFAULT false NOT NULL,
	"host" text,
	"port" integer,
	"username" text,
	"password_encrypted" text,
	"database" text,
	"ssh_tunnel_host" text,
	"ssh_tunnel_port" integer,
	"ssh_tunnel_user" text,
	"data_time_zone" text DEFAULT 'UTC' NOT NULL,
	"require_ssl" boolean DEFAULT false NOT NULL,
	"verify_ssl" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"schema_updated_at" timestamp with time zone,
	"total_row_count" bigint,
	"total_row_count_exact" boolean,
	"default_schema_name" text,
	"max_concurrent_executions" integer DEFAULT 20 NOT NULL,
	"server_version" text,
	"update_schema_nightly" boolean DEFAULT true NOT NULL,
	"update_schema_row_counts" boolean DEFAULT true NOT NULL,
	"included_databases" jsonb,
	"included_schemas" jsonb,
	"athena_s3_output_location" text,
	"athena_region" text DEFAULT 'us-east-1',
	"athena_workgroup" text DEFAULT 'primary',
	"databricks_http_path" text,
	"databricks_auth_mode" text,
	"databricks_auth_expires_at" timestamp with time zone,
	"snowflake_identifier" text,
	"snowflake_region" text,
	"snowflake_warehouse" text,
	"bigquery_service_key_encrypted" text,
	"bigquery_public_project_ids" jsonb,
	"schema_cache" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_filters" (
	"organization_id" text NOT NULL,
	"dashboard_id" text NOT NULL,
	"filter_id" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dashboard_filters_dashboard_id_filter_id_pk" PRIMARY KEY("dashboard_id","filter_id")
);
--> statement-breakpoint
CREATE TABLE "dashboard_group_members" (
	"organization_id" text NOT NULL,
	"dashboard_group_id" text NOT NULL,
	"dashboard_id" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "dashboard_group_members_dashboard_group_id_dashboard_id_pk" PRIMARY KEY("dashboard_group_id","dashboard_id")
);
--> statement-breakpoint
CREATE TABLE "dashboard_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"position" integer DEFAULT 0 NOT NULL,
	"personal_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_user_groups" (
	"organization_id" text NOT NULL,
	"dashboard_id" text NOT NULL,
	"user_group_id" text NOT NULL,
	CONSTRAINT "dashboard_user_groups_dashboard_id_user_group_id_pk" PRIMARY KEY("dashboard_id","user_group_id")
);
--> statement-breakpoint
CREATE TABLE "dashboards" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text,
	"name" text NOT NULL,
	"description" text,
	"time_zone_config" jsonb DEFAULT '{"type":"organization"}'::jsonb NOT NULL,
	"automatic_update_enabled" boolean DEFAULT true NOT NULL,
	"thumbnail_enabled" boolean DEFAULT true NOT NULL,
	"thumbnail_image_url" text,
	"thumbnail_created_at" timestamp with time zone,
	"prewarm" boolean DEFAULT false NOT NULL,
	"published" boolean DEFAULT false NOT NULL,
	"data_refresh_rate" integer DEFAULT 1440 NOT NULL,
	"data_refresh_anchor_time" text,
	"is_locked" boolean DEFAULT false NOT NULL,
	"default_parameters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"default_page_width" integer DEFAULT 1600 NOT NULL,
	"layout" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"floating_enabled" boolean DEFAULT false NOT NULL,
	"color_scheme" text DEFAULT 'scheme_6' NOT NULL,
	"filters_configuration" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"share_mode" text DEFAULT 'none' NOT NULL,
	"last_accessed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "filters" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"datasource_id" text,
	"parent_filter_id" text,
	"display_name" text,
	"variable_name" text NOT NULL,
	"control_type" text NOT NULL,
	"value_type" text NOT NULL,
	"values" jsonb,
	"value_names" jsonb,
	"sql_query" text,
	"data_refresh_rate" integer,
	"default_values" jsonb,
	"required" boolean DEFAULT false NOT NULL,
	"dropdown_validate" boolean DEFAULT false NOT NULL,
	"dropdown_default_to_first" boolean DEFAULT false NOT NULL,
	"relative_range_enabled" boolean DEFAULT true NOT NULL,
	"before_range_enabled" boolean DEFAULT true NOT NULL,
	"after_range_enabled" boolean DEFAULT true NOT NULL,
	"from_to_range_enabled" boolean DEFAULT true NOT NULL,
	"allowed_aggregations" jsonb,
	"options_cache" jsonb,
	"options_refreshed_at" timestamp with time zone,
	"last_query_success" timestamp with time zone,
	"last_query_error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_filters" (
	"organization_id" text NOT NULL,
	"report_id" text NOT NULL,
	"filter_id" text NOT NULL,
	CONSTRAINT "report_filters_report_id_filter_id_pk" PRIMARY KEY("report_id","filter_id")
);
--> statement-breakpoint
CREATE TABLE "reports" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"dashboard_id" text NOT NULL,
	"datasource_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"sql_query" text NOT NULL,
	"r_query" text,
	"r_query_enabled" boolean DEFAULT false NOT NULL,
	"data_refresh_rate" integer,
	"data_refresh_anchor_time" text,
	"chart_configuration" jsonb DEFAULT '{"type":"table"}'::jsonb NOT NULL,
	"download_actions_enabled" boolean DEFAULT true NOT NULL,
	"data_download_enabled" boolean DEFAULT true NOT NULL,
	"maximize_action_enabled" boolean DEFAULT true NOT NULL,
	"refresh_enabled" boolean DEFAULT true NOT NULL,
	"unused_filters_warning_enabled" boolean DEFAULT false NOT NULL,
	"unlimited_csv_export_enabled" boolean DEFAULT false NOT NULL,
	"display_name_as_title" boolean DEFAULT true NOT NULL,
	"default_page_width" integer DEFAULT 800 NOT NULL,
	"default_page_height" integer DEFAULT 600 NOT NULL,
	"attribution" text,
	"no_data_message" text,
	"query_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sql_snippet_uses" (
	"organization_id" text NOT NULL,
	"owner_type" text NOT NULL,
	"owner_id" text NOT NULL,
	"sql_snippet_id" text NOT NULL,
	CONSTRAINT "sql_snippet_uses_owner_type_owner_id_sql_snippet_id_pk" PRIMARY KEY("owner_type","owner_id","sql_snippet_id")
);
--> statement-breakpoint
CREATE TABLE "sql_snippets" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"datasource_id" text,
	"name" text NOT NULL,
	"description" text,
	"text" text NOT NULL,
	"params" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"dashboard_id" text,
	"report_id" text,
	"created_by_user_id" text,
	"name" text NOT NULL,
	"emails" text NOT NULL,
	"cc_emails" text,
	"bcc_emails" text,
	"attach_as" text NOT NULL,
	"schedule" text NOT NULL,
	"time_zone" text,
	"subject_text" text,
	"body_text" text,
	"send_via" text,
	"page_width" integer,
	"parameters" jsonb,
	"next_send_at" timestamp with time zone,
	"last_sent_at" timestamp with time zone,
	"last_error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_sharing_links" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"dashboard_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"token" text NOT NULL,
	"toolbar_enabled" boolean DEFAULT true NOT NULL,
	"parameters_enabled" boolean DEFAULT false NOT NULL,
	"filter_bar_enabled" boolean DEFAULT false NOT NULL,
	"refresh_enabled" boolean DEFAULT false NOT NULL,
	"data_download_enabled" boolean DEFAULT true NOT NULL,
	"unlimited_csv_export_enabled" boolean DEFAULT false NOT NULL,
	"sharing_secret_required" boolean DEFAULT false NOT NULL,
	"sharing_secret_encrypted" text,
	"sharing_password_hash" text,
	"color_mode" text DEFAULT 'light' NOT NULL,
	"ip_whitelist" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "export_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"kind" text NOT NULL,
	"dashboard_id" text,
	"report_id" text,
	"parameters" jsonb,
	"params_hash" text,
	"job_status" text DEFAULT 'started' NOT NULL,
	"file_key" text,
	"error_message" text,
	"created_by" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sql_alert_results" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"sql_alert_id" text NOT NULL,
	"execution_id" text,
	"result_status" text NOT NULL,
	"error_message" text,
	"sql_query" text,
	"sql_query_duration" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sql_alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"datasource_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"sql_query" text NOT NULL,
	"run_schedule" text NOT NULL,
	"run_at" text,
	"run_every" integer,
	"trigger_condition" text DEFAULT 'has_results' NOT NULL,
	"trigger_value" double precision,
	"email_condition" text NOT NULL,
	"emails" text,
	"cc_emails" text,
	"bcc_emails" text,
	"error_emails" text,
	"attach_as" text,
	"running_execution_id" text,
	"last_result_status" text,
	"last_error_message" text,
	"last_query_run" timestamp with time zone,
	"last_query_success" timestamp with time zone,
	"last_query_error_message" text,
	"next_run_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"datasource_id" text,
	"execution_type" text NOT NULL,
	"execution_status" text DEFAULT 'starting' NOT NULL,
	"report_id" text,
	"filter_id" text,
	"sql_alert_id" text,
	"sql_query" text NOT NULL,
	"parameters" jsonb,
	"params_hash" text,
	"error_message" text,
	"result_columns" integer,
	"result_rows" bigint,
	"result_size" bigint,
	"created_by" text,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "result_chunks" (
	"execution_id" text NOT NULL,
	"seq" integer NOT NULL,
	"rows" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "result_chunks_execution_id_seq_pk" PRIMARY KEY("execution_id","seq")
);
--> statement-breakpoint
CREATE TABLE "results" (
	"execution_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"data_key" text NOT NULL,
	"fields" jsonb NOT NULL,
	"row_count" bigint NOT NULL,
	"size_in_bytes" bigint NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"data_timestamp" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD CONSTRAINT "user_group_members_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD CONSTRAINT "user_group_members_user_group_id_user_groups_id_fk" FOREIGN KEY ("user_group_id") REFERENCES "public"."user_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD CONSTRAINT "user_group_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasource_agent_links" ADD CONSTRAINT "datasource_agent_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasource_agent_links" ADD CONSTRAINT "datasource_agent_links_datasource_id_datasources_id_fk" FOREIGN KEY ("datasource_id") REFERENCES "public"."datasources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasource_agent_links" ADD CONSTRAINT "datasource_agent_links_agent_id_datasource_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."datasource_agents"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasource_agents" ADD CONSTRAINT "datasource_agents_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasources" ADD CONSTRAINT "datasources_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_filters" ADD CONSTRAINT "dashboard_filters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_filters" ADD CONSTRAINT "dashboard_filters_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_filters" ADD CONSTRAINT "dashboard_filters_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_group_members" ADD CONSTRAINT "dashboard_group_members_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_group_members" ADD CONSTRAINT "dashboard_group_members_dashboard_group_id_dashboard_groups_id_fk" FOREIGN KEY ("dashboard_group_id") REFERENCES "public"."dashboard_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_group_members" ADD CONSTRAINT "dashboard_group_members_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_groups" ADD CONSTRAINT "dashboard_groups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_groups" ADD CONSTRAINT "dashboard_groups_personal_user_id_users_id_fk" FOREIGN KEY ("personal_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_user_groups" ADD CONSTRAINT "dashboard_user_groups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_user_groups" ADD CONSTRAINT "dashboard_user_groups_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_user_groups" ADD CONSTRAINT "dashboard_user_groups_user_group_id_user_groups_id_fk" FOREIGN KEY ("user_group_id") REFERENCES "public"."user_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filters" ADD CONSTRAINT "filters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "filters" ADD CONSTRAINT "filters_datasource_id_datasources_id_fk" FOREIGN KEY ("datasource_id") REFERENCES "public"."datasources"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_filters" ADD CONSTRAINT "report_filters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_filters" ADD CONSTRAINT "report_filters_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_filters" ADD CONSTRAINT "report_filters_filter_id_filters_id_fk" FOREIGN KEY ("filter_id") REFERENCES "public"."filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_datasource_id_datasources_id_fk" FOREIGN KEY ("datasource_id") REFERENCES "public"."datasources"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_snippet_uses" ADD CONSTRAINT "sql_snippet_uses_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_snippet_uses" ADD CONSTRAINT "sql_snippet_uses_sql_snippet_id_sql_snippets_id_fk" FOREIGN KEY ("sql_snippet_id") REFERENCES "public"."sql_snippets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_snippets" ADD CONSTRAINT "sql_snippets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_snippets" ADD CONSTRAINT "sql_snippets_datasource_id_datasources_id_fk" FOREIGN KEY ("datasource_id") REFERENCES "public"."datasources"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_schedules" ADD CONSTRAINT "dashboard_schedules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_schedules" ADD CONSTRAINT "dashboard_schedules_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_schedules" ADD CONSTRAINT "dashboard_schedules_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_schedules" ADD CONSTRAINT "dashboard_schedules_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_sharing_links" ADD CONSTRAINT "dashboard_sharing_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_sharing_links" ADD CONSTRAINT "dashboard_sharing_links_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_dashboard_id_dashboards_id_fk" FOREIGN KEY ("dashboard_id") REFERENCES "public"."dashboards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_alert_results" ADD CONSTRAINT "sql_alert_results_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_alert_results" ADD CONSTRAINT "sql_alert_results_sql_alert_id_sql_alerts_id_fk" FOREIGN KEY ("sql_alert_id") REFERENCES "public"."sql_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_alerts" ADD CONSTRAINT "sql_alerts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sql_alerts" ADD CONSTRAINT "sql_alerts_datasource_id_datasources_id_fk" FOREIGN KEY ("datasource_id") REFERENCES "public"."datasources"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_datasource_id_datasources_id_fk" FOREIGN KEY ("datasource_id") REFERENCES "public"."datasources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "result_chunks" ADD CONSTRAINT "result_chunks_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "results" ADD CONSTRAINT "results_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "results" ADD CONSTRAINT "results_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_id_unique" ON "api_keys" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "audit_org_time_idx" ON "audit_log" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "ugm_user_idx" ON "user_group_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_groups_org_idx" ON "user_groups" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_groups_builtin_unique" ON "user_groups" USING btree ("organization_id","built_in_behavior");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "users_org_idx" ON "users" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "agents_agent_id_unique" ON "datasource_agents" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "agents_org_idx" ON "datasource_agents" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "datasources_org_idx" ON "datasources" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "dashboard_groups_org_idx" ON "dashboard_groups" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "dashboards_org_idx" ON "dashboards" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "filters_org_idx" ON "filters" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "reports_org_idx" ON "reports" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "reports_dashboard_idx" ON "reports" USING btree ("dashboard_id");--> statement-breakpoint
CREATE INDEX "snippet_uses_snippet_idx" ON "sql_snippet_uses" USING btree ("sql_snippet_id");--> statement-breakpoint
CREATE INDEX "sql_snippets_org_idx" ON "sql_snippets" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "schedules_org_idx" ON "dashboard_schedules" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "schedules_next_idx" ON "dashboard_schedules" USING btree ("next_send_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sharing_links_token_unique" ON "dashboard_sharing_links" USING btree ("token");--> statement-breakpoint
CREATE INDEX "sharing_links_org_idx" ON "dashboard_sharing_links" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "export_jobs_org_idx" ON "export_jobs" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "export_jobs_hash_idx" ON "export_jobs" USING btree ("params_hash");--> statement-breakpoint
CREATE INDEX "alert_results_alert_idx" ON "sql_alert_results" USING btree ("sql_alert_id","created_at");--> statement-breakpoint
CREATE INDEX "sql_alerts_org_idx" ON "sql_alerts" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "executions_org_idx" ON "executions" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "executions_hash_idx" ON "executions" USING btree ("organization_id","params_hash");