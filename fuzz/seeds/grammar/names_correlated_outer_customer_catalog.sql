-- expect: names postgres catalog
SELECT (SELECT email FROM invoice LIMIT 1) FROM customer