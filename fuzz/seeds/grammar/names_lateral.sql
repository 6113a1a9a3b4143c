-- expect: names postgres
SELECT x.e FROM customer AS c, LATERAL (SELECT email AS e) AS x