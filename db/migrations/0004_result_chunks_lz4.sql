-- Stored result chunks compress with lz4 where the server has it (PostgreSQL 14+ built with lz4, as
-- Debian's and most distributions' are): the same size as the default pglz, about three times less
-- CPU to store (ARCHITECTURE.md D27). Elsewhere (PGlite, servers built without lz4) the default stays.
DO $$
BEGIN
	ALTER TABLE "result_chunks" ALTER COLUMN "data" SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE 'lz4 is not available here; result_chunks.data keeps the default compression (%)', SQLERRM;
END $$;
