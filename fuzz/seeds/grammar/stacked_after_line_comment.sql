-- expect: dangerous
SELECT 1 -- c
;
DROP TABLE t