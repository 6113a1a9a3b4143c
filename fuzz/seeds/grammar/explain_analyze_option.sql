-- expect: dangerous
EXPLAIN (ANALYZE) SELECT 1