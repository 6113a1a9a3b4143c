-- expect: names sqlite
SELECT PHONE AS PHONE, 43 AS email FROM customer