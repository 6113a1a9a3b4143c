-- expect: names duckdb
SELECT d.e FROM customer, (SELECT email AS e) AS d