-- expect: dangerous
SELECT "pg_sleep"(1)