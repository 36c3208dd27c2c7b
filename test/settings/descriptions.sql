-- server: session_preload
-- Every mrfdp setting describes itself (issue 14 item 4): a short and a long
-- description in pg_settings (SHOW ALL, \dconfig+), each a sentence.
BEGIN;
SELECT plan(3);
SELECT cmp_ok((SELECT count(*) FROM pg_settings WHERE name LIKE 'mrfdp.%'), '>=', 5::bigint,
              'the library defined its settings');
SELECT is((SELECT string_agg(name, ', ' ORDER BY name) FROM pg_settings
           WHERE name LIKE 'mrfdp.%' AND (coalesce(short_desc, '') = '' OR coalesce(extra_desc, '') = '')),
          NULL, 'every mrfdp setting has a short and a long description (missing:)');
SELECT is((SELECT string_agg(name, ', ' ORDER BY name) FROM pg_settings
           WHERE name LIKE 'mrfdp.%' AND (short_desc !~ '^[A-Z].*\.$' OR extra_desc !~ '^[A-Z0-9-].*\.$')),
          NULL, 'each description is a sentence (capital, final period; not:)');
SELECT * FROM finish();
ROLLBACK;
