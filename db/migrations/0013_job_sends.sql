-- Background jobs on Cloudflare Queues (issue 18, D54): a message may be delivered more than once
-- (a retry, or a consumer that died after sending), so every e-mail a job sends is recorded here under
-- the job's idempotency key before it goes out (state 'sending') and marked 'sent' after. A retry that
-- finds the key sent or in flight sends nothing.
CREATE TABLE "job_sends" (
	"key" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"send_state" text DEFAULT 'sending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "job_sends" ADD CONSTRAINT "job_sends_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "job_sends_created_idx" ON "job_sends" USING btree ("created_at");
--> statement-breakpoint
-- Thumbnails: when a render of the dashboard's thumbnail was last handed to the queue (one a day at most).
ALTER TABLE "dashboards" ADD COLUMN "thumbnail_queued_at" timestamp with time zone;
