-- The sample shop leaves the metadata database (ARCHITECTURE D32): it lives in a database of its own
-- (db/src/sample-shop/setup.ts), read by the LOGIN role cairn_sample. The old NOLOGIN role
-- cairn_sample_reader loses its grants here with the schema; a membership of the migrating user in it
-- (made for SET ROLE by non-superusers) is revoked. The role itself belongs to the whole server and
-- may still hold grants in other databases, so it is left for the operator to drop.
DROP SCHEMA IF EXISTS "sample_shop" CASCADE;--> statement-breakpoint
DO $cairn$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cairn_sample_reader')
     AND pg_has_role(current_user, 'cairn_sample_reader', 'MEMBER')
     AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('REVOKE cairn_sample_reader FROM %I', current_user);
  END IF;
END
$cairn$;
