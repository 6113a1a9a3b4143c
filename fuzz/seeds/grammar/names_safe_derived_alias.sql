-- expect: names postgres catalog
SELECT d.email FROM (SELECT first_name AS email FROM customer) AS d ORDER BY email