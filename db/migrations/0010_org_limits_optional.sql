-- A self-hosted organization has no analyst-seat or datasource cap unless the operator sets one
-- (`npm run cairn -- org limits`): NULL means no limit. The old default of 10 was never chosen by
-- anyone (there was no way to set it), so it becomes NULL too.
ALTER TABLE "organizations" ALTER COLUMN "plan_analyst_seats" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "plan_analyst_seats" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "plan_datasources" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ALTER COLUMN "plan_datasources" DROP DEFAULT;--> statement-breakpoint
UPDATE "organizations" SET "plan_analyst_seats" = NULL WHERE "plan_analyst_seats" = 10;--> statement-breakpoint
UPDATE "organizations" SET "plan_datasources" = NULL WHERE "plan_datasources" = 10;
