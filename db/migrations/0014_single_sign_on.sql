-- Single sign-on (issue 20, ARCHITECTURE D57): one OIDC or SAML connection per organization, the sign-ins
-- that left for the identity provider (single use), and the SAML assertion ids already used (replay).
CREATE TABLE "sso_connections" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"protocol" text NOT NULL,
	"preset" text DEFAULT 'generic' NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text,
	"client_secret_sealed" text,
	"metadata_url" text,
	"sso_url" text,
	"certificate" text,
	"domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"require_sso" boolean DEFAULT false NOT NULL,
	"jit_role" text,
	"jit_group_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "sso_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"protocol" text NOT NULL,
	"nonce" text,
	"code_verifier" text,
	"next" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sso_attempts" ADD CONSTRAINT "sso_attempts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sso_attempts_expires_idx" ON "sso_attempts" USING btree ("expires_at");--> statement-breakpoint
CREATE TABLE "sso_assertions_seen" (
	"organization_id" text NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sso_assertions_seen_organization_id_assertion_id_pk" PRIMARY KEY("organization_id","assertion_id")
);
--> statement-breakpoint
ALTER TABLE "sso_assertions_seen" ADD CONSTRAINT "sso_assertions_seen_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
