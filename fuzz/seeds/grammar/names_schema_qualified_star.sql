-- expect: names postgres
SELECT public.customer.* FROM customer