-- expect: dangerous
WITH d AS (DELETE FROM t WHERE a = 1 RETURNING *) SELECT * FROM d