-- expect: names postgres
SELECT mail FROM customer AS c(a, b, d, mail)