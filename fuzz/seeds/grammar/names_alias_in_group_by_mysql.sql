-- expect: names mysql
SELECT first_name AS email, count(*) FROM customer GROUP BY email