-- expect: names postgres catalog
SELECT public.customer.* FROM customer