-- expect: names postgres
SELECT (SELECT email FROM customer LIMIT 1) AS x FROM (SELECT 1 AS email) AS d