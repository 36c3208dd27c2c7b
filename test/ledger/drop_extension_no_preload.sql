-- server: no_preload
-- DROP EXTENSION mrfdp is refused while budgets exist also in a session that
-- has not loaded the library: the guard is an event trigger whose C function
-- loads it.  The budget row is written directly (as the extension's owner)
-- so that nothing loads the library before the DROP.
BEGIN;
SELECT plan(5);
SELECT ok(current_setting('mrfdp.allow_drop_with_budgets', true) IS NULL, 'mrfdp is not loaded yet in this session');
CREATE TABLE np_guarded (x int);
INSERT INTO mrfdp.budget (relation, epsilon, delta) VALUES ('np_guarded'::regclass, 1, 1e-6);
SELECT throws_ok('DROP EXTENSION mrfdp CASCADE', '2BP01', NULL,
                 'DROP EXTENSION mrfdp CASCADE is refused while a budget exists, without the preload');
SELECT ok(EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'mrfdp'), 'the extension is still there');
SET LOCAL mrfdp.allow_drop_with_budgets = on;
SELECT lives_ok('DROP EXTENSION mrfdp CASCADE', 'a superuser''s explicit setting allows it');
SELECT ok(NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'mrfdp'), 'and the extension is gone');
SELECT * FROM finish();
ROLLBACK;
