-- expect: benign
SELECT 'pg_sleep(1)', lower('it''s') FROM public.album UNION ALL SELECT '-- x', '/* y */' FROM "public"."invoice"