-- expect: names sqlite
SELECT c.n FROM (SELECT 1 AS x) AS email, (SELECT count(*) AS n FROM customer WHERE email LIKE 'a%') AS c