-- expect: names postgres
SELECT email AS email FROM customer