-- expect: dangerous
SELECT 1;/* x */COMMIT; DROP TABLE t