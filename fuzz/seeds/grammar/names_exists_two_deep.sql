-- expect: names duckdb
SELECT 1 FROM customer WHERE EXISTS (SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM invoice WHERE email LIKE 'a%'))