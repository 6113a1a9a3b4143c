-- expect: names postgres
SELECT (SELECT count(*) FROM customer WHERE email LIKE 'secret%') FROM (SELECT 1 AS x) AS email