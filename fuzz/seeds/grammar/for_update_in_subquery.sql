-- expect: dangerous
SELECT * FROM (SELECT * FROM t FOR UPDATE) AS s