-- expect: dangerous
SELECT row_number() OVER (ORDER BY set_config('role', 'postgres', false)) FROM t