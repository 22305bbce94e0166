-- An e-mail address belongs to one account across Cairn, but pending invitations no longer count:
-- inviting an address that has an account in another organization answers like any other invitation
-- (no account enumeration). The address becomes unique again when an invitation is accepted; accepting
-- one for an address that meanwhile has an account is refused (409).
DROP INDEX IF EXISTS "users_email_unique";--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree (lower("email")) WHERE "invitation_created_at" IS NULL OR "invitation_accepted_at" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "users_org_email_unique" ON "users" USING btree ("organization_id", lower("email"));
