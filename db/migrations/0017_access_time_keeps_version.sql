-- A dashboard view writes last_accessed_at (at most once an hour, D62): an access time, not content, so it does
-- not move the organization's version (and with it every cached read of the organization, D56).
CREATE OR REPLACE FUNCTION "cairn_bump_organization_version"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	org text;
BEGIN
	IF TG_OP = 'DELETE' THEN
		org := to_jsonb(OLD) ->> TG_ARGV[0];
	ELSE
		org := to_jsonb(NEW) ->> TG_ARGV[0];
	END IF;
	IF TG_OP = 'UPDATE' THEN
		IF (to_jsonb(OLD) - 'last_accessed_at') = (to_jsonb(NEW) - 'last_accessed_at') THEN
			RETURN NULL;
		END IF;
		-- A row moved to another organization: both change.
		IF (to_jsonb(OLD) ->> TG_ARGV[0]) IS DISTINCT FROM org THEN
			INSERT INTO organization_versions AS v (organization_id) VALUES (to_jsonb(OLD) ->> TG_ARGV[0])
			ON CONFLICT (organization_id) DO UPDATE SET version = v.version + 1;
		END IF;
	END IF;
	INSERT INTO organization_versions AS v (organization_id) VALUES (org)
	ON CONFLICT (organization_id) DO UPDATE SET version = v.version + 1;
	RETURN NULL;
END;
$$;
