CREATE TABLE "export_file_chunks" (
	"job_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "export_file_chunks_job_id_seq_pk" PRIMARY KEY("job_id","seq")
);
--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "file_name" text;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "content_type" text;--> statement-breakpoint
ALTER TABLE "export_jobs" ADD COLUMN "file_size" bigint;--> statement-breakpoint
ALTER TABLE "export_file_chunks" ADD CONSTRAINT "export_file_chunks_job_id_export_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."export_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_file_chunks" ADD CONSTRAINT "export_file_chunks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;