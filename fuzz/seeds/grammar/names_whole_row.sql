-- expect: names postgres
SELECT c FROM customer AS c