-- expect: benign
SELECT $$; DELETE FROM t$$ AS x, $q$ '; COMMIT $q$ FROM "we;ird"