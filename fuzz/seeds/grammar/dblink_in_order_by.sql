-- expect: dangerous
SELECT a FROM t ORDER BY dblink('host=x', 'select 1')