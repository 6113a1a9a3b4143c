-- expect: names postgres
SELECT first_name AS email, row_number() OVER (PARTITION BY email ORDER BY email) AS n FROM customer