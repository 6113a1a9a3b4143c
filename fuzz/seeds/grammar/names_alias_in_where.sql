-- expect: names postgres
SELECT first_name AS email FROM customer WHERE email LIKE '%@%'