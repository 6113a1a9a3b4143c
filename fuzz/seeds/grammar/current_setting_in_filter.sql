-- expect: dangerous
SELECT count(*) FILTER (WHERE current_setting('is_superuser') IS NULL) FROM t