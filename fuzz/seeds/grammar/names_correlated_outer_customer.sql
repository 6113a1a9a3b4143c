-- expect: names postgres
SELECT (SELECT email FROM invoice LIMIT 1) FROM customer