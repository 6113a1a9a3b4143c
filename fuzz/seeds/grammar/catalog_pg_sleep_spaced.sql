-- expect: dangerous
SELECT PG_CATALOG . pg_sleep /**/ (1)