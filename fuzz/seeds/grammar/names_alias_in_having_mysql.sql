-- expect: names mysql
SELECT first_name AS email FROM customer GROUP BY first_name, email HAVING email > ''