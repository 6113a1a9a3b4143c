-- expect: names postgres catalog
WITH k0 AS (SELECT 1 FROM customer, (VALUES (1)) AS x(phone) NATURAL JOIN (SELECT 'v' AS email) AS x LEFT JOIN (VALUES (1)) AS i("PHONE") ON (1 = email)) SELECT 1 FROM customer
