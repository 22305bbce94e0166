-- A version number per organization that changes whenever something an API read can show changes
-- (worker-api/src/lib/read-cache.ts keeps serialized documents per version). The triggers run at commit
-- (deferred constraint triggers), so a transaction takes the version row's lock last and never waits
-- for another lock while holding it. Updates that change nothing do not count.
CREATE TABLE "organization_versions" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "cairn_bump_organization_version"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	org text;
BEGIN
	IF TG_OP = 'DELETE' THEN
		org := to_jsonb(OLD) ->> TG_ARGV[0];
	ELSE
		org := to_jsonb(NEW) ->> TG_ARGV[0];
	END IF;
	IF TG_OP = 'UPDATE' THEN
		IF to_jsonb(OLD) = to_jsonb(NEW) THEN
			RETURN NULL;
		END IF;
		-- A row moved to another organization: both change.
		IF (to_jsonb(OLD) ->> TG_ARGV[0]) IS DISTINCT FROM org THEN
			INSERT INTO organization_versions AS v (organization_id) VALUES (to_jsonb(OLD) ->> TG_ARGV[0])
			ON CONFLICT (organization_id) DO UPDATE SET version = v.version + 1;
		END IF;
	END IF;
	INSERT INTO organization_versions AS v (organization_id) VALUES (org)
	ON CONFLICT (organization_id) DO UPDATE SET version = v.version + 1;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "organizations_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "organizations"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "users_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "users"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "user_groups_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "user_groups"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "user_group_members_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "user_group_members"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "datasources_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "datasources"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "datasource_agents_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "datasource_agents"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "datasource_agent_links_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "datasource_agent_links"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "dashboards_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "dashboards"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "dashboard_filters_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "dashboard_filters"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "dashboard_groups_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "dashboard_groups"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "dashboard_group_members_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "dashboard_group_members"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "dashboard_user_groups_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "dashboard_user_groups"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "filters_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "filters"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "report_filters_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "report_filters"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "reports_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "reports"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "sql_snippets_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "sql_snippets"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "sql_snippet_uses_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "sql_snippet_uses"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "dashboard_sharing_links_bump_organization_version" AFTER INSERT OR UPDATE OR DELETE ON "dashboard_sharing_links"
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cairn_bump_organization_version('organization_id');
