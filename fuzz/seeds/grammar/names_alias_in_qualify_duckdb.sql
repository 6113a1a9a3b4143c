-- expect: names duckdb
SELECT first_name AS email FROM customer QUALIFY row_number() OVER (ORDER BY email) = 1