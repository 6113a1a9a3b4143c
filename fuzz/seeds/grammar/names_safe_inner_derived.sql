-- expect: names postgres
SELECT (SELECT email FROM (SELECT 1 AS email) AS d) FROM customer