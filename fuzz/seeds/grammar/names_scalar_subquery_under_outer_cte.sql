-- expect: names sqlite
WITH k AS (SELECT 1 AS email) SELECT (SELECT max(email) FROM customer) FROM k