-- expect: names duckdb catalog
SELECT DISTINCT i.*, i.*, i.* FROM (VALUES (1)) AS i(country), customer AS i, (VALUES (1)) AS i(country)
