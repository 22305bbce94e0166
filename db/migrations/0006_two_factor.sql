-- Two-factor authentication with an authenticator app (TOTP). The secret is sealed (AES-GCM under a key
-- derived from the API's SECRET_KEY); while otp_app_enabled is false it is a pending enrolment. Recovery
-- codes are kept as SHA-256 hashes and removed when used; otp_last_step refuses a code used twice.
ALTER TABLE "users" ADD COLUMN "otp_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "otp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "otp_recovery_hashes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- After the right password of a user with 2FA on: a single-use challenge for the code step. The id is
-- the SHA-256 of the token the client holds; the row is deleted when the session starts.
CREATE TABLE "sign_in_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sign_in_challenges" ADD CONSTRAINT "sign_in_challenges_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sign_in_challenges" ADD CONSTRAINT "sign_in_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sign_in_challenges_user_idx" ON "sign_in_challenges" USING btree ("user_id");
