-- expect: names duckdb catalog
WITH k0 AS (SELECT customer.*, * EXCLUDE (email, phone) FROM (VALUES (1)) AS d(customer_id), (SELECT 'v' AS "phone") AS customer NATURAL JOIN (VALUES (1)) AS x("phone"), customer AS d GROUP BY 24, 40) SELECT 1 FROM customer
