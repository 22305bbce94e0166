-- Results in the region's R2 bucket (ARCHITECTURE D55): a result whose rows went to an object names it
-- here with its chunk index ({"key": …, "chunks": [[rows, bytes], …]}); NULL means its rows are in
-- result_chunks (schema documents, results stored before this, a stack without a bucket).
ALTER TABLE "results" ADD COLUMN "stored_object" jsonb;
