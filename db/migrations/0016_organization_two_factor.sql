-- Organization-wide account security (issue 20, ARCHITECTURE D65–D66). Each session records how it was
-- signed in ('password', 'invitation', 'oidc', 'saml'; NULL for sessions older than this migration, read
-- as password): an organization's "require two-factor authentication" leads password sessions of users
-- without it to enrolment, while single sign-on sessions rely on the identity provider's own checks.
ALTER TABLE "sessions" ADD COLUMN "sign_in_method" text;--> statement-breakpoint
-- The administrators' audit log page filters by action within a time range.
CREATE INDEX "audit_org_action_time_idx" ON "audit_log" USING btree ("organization_id","action","created_at");
