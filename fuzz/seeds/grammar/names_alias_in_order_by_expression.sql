-- expect: names postgres catalog
SELECT first_name AS email FROM customer ORDER BY lower(email)