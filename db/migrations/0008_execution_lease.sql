-- A lease on unfinished executions (ARCHITECTURE, "Executions hold a lease"): the gate that runs or
-- queues an execution renews lease_expires_at every few seconds; a reader that finds an unfinished
-- execution whose lease has run out writes it off as internal_error (the runtime running it died).
-- Rows inserted without a lease get one minute, time enough for the gate to take them. Existing rows
-- keep NULL (no lease: the cron's older rule still writes them off), hence the default set apart from
-- the column, which would otherwise give every existing row the same lease.
ALTER TABLE "executions" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "executions" ALTER COLUMN "lease_expires_at" SET DEFAULT now() + interval '1 minute';--> statement-breakpoint
CREATE INDEX "executions_lease_idx" ON "executions" USING btree ("lease_expires_at") WHERE "execution_status" in ('starting', 'running', 'waiting', 'scheduled');
