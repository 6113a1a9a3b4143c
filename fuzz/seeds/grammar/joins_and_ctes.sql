-- expect: benign
WITH c0 AS (SELECT a FROM t) SELECT s0.a FROM c0 s0 LEFT JOIN (artist AS s1 CROSS JOIN "Track") ON s0.a = s1.a GROUP BY s0.a HAVING count(*) > 1 ORDER BY 1 DESC LIMIT 10