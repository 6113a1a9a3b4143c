-- expect: names duckdb catalog
SELECT * FROM customer NATURAL JOIN (SELECT 'x' AS email) AS d