-- expect: dangerous
SELECT * FROM "pg_catalog"."pg_authid"