-- expect: names sqlite catalog
SELECT first_name AS email FROM customer ORDER BY email