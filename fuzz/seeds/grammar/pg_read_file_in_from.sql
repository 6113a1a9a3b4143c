-- expect: dangerous
SELECT * FROM pg_read_file('/etc/passwd') AS f