-- expect: dangerous
SELECT * FROM ROWS FROM (lo_import('/etc/passwd')) AS f