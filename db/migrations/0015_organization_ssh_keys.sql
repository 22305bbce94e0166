-- Each organization's SSH key pair for tunnelled datasources (issue 17, ARCHITECTURE D51). Made on
-- first use by the API (the private key is sealed with SECRET_KEY, which SQL does not have), so
-- existing organizations start without one.
ALTER TABLE "organizations" ADD COLUMN "ssh_public_key" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "ssh_private_key_encrypted" text;
