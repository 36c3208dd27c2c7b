-- server: session_preload
-- Doubles written as text (options documents, models, metadata) read back
-- as the same double whatever the session's extra_float_digits: at 0 or
-- below, float8out cuts to 15 digits, and an option written that way would
-- make the learner spend (and the ledger charge) another amount than given.
BEGIN;
SELECT plan(8);

SET LOCAL extra_float_digits = -15;
SELECT is((mrf_options(rho => 0.1234567890123456789)->>'rho')::float8, 0.1234567890123456789::float8,
          'rho survives mrf_options at extra_float_digits = -15');
SELECT is((mrf_options(epsilon => 1.0000000000000002, delta => 1e-6)->>'epsilon')::float8,
          1.0000000000000002::float8, 'epsilon: the double just above 1');
SELECT is((mrf_options(rho => 5e-324)->>'rho')::float8, 5e-324::float8, 'the smallest positive double');
SELECT is((mrf_options(lambda => 1.7976931348623157e308)->>'lambda')::float8,
          1.7976931348623157e308::float8, 'the largest double');

SET LOCAL extra_float_digits = 0;
SELECT is((mrf_options(rho => 0.30000000000000004)->>'rho')::float8, 0.30000000000000004::float8,
          'rho survives mrf_options at extra_float_digits = 0');
SELECT is((mrf_info(mrf_ising(ARRAY[[0, 0.1234567890123456789], [0.1234567890123456789, 0]],
                              ARRAY[0, 0.30000000000000004])::text::mrf)::text IS NOT NULL), true,
          'a model round-trips through its text form');
SELECT is((SELECT weight FROM mrf_edges(mrf_ising(ARRAY[[0, 0.1234567890123456789], [0.1234567890123456789, 0]],
                                                   ARRAY[0, 0])::text::mrf))::float8,
          0.1234567890123456789::float8, 'a weight read back from the text form is the same double');
SELECT is((SELECT theta FROM mrf_fields(mrf_ising(ARRAY[[0, 0.5], [0.5, 0]], ARRAY[0, 0.30000000000000004])::text::mrf)
           WHERE i = 2)::float8, 0.30000000000000004::float8, 'so is a field');

SELECT * FROM finish();
ROLLBACK;
