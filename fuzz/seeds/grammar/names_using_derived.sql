-- expect: names postgres
SELECT email FROM customer JOIN (SELECT 'x' AS email) AS d USING (email)