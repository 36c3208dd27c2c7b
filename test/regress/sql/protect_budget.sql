-- mrfdp.protect() returns the budget as a row, with the rho it allows (and
-- as typed on the protected path, whose count of substituted rows takes
-- 1/128 on top); the first call names the platform's channels the budget
-- does not cover, and a call that changes a budget says from what.
\set VERBOSITY default
CREATE TABLE pb_t (x boolean[]);
-- first protect: the NOTICE about sizes, pg_stat counters and pg_stats
SELECT relation, epsilon, delta, rho_cap,
       rho <= mrf_zcdp_for_dp(10, 1e-6) AND rho > mrf_zcdp_for_dp(10, 1e-6) * (1 - 1e-12) AS rho_is_the_conversion,
       rho_from < rho AND rho_from * (1 + 1.0 / 128) <= rho AND rho_from * (1 + 1.0 / 128) > rho * (1 - 1e-12)
         AS rho_from_leaves_room_for_the_count,
       remaining_rho = rho AS nothing_spent, remaining_rho_from = rho_from AS nothing_spent_from
FROM mrfdp.protect('pb_t', epsilon => 10, delta => 1e-6);
-- raising the budget says so (it used to be silent)
SELECT relation, epsilon, delta FROM mrfdp.protect('pb_t', epsilon => 20, delta => 1e-6);
-- a cap: the rho it allows is the cap
SELECT relation, rho_cap, rho, rho_from < rho AS count_share_taken
FROM mrfdp.protect('pb_t', epsilon => 20, delta => 1e-6, rho_cap => 0.5);
-- the same budget again: no NOTICE
SELECT relation, rho_cap FROM mrfdp.protect('pb_t', epsilon => 20, delta => 1e-6, rho_cap => 0.5);
-- a pure budget allows no rho
SELECT relation, delta, rho, rho_from FROM mrfdp.protect('pb_t', epsilon => 20, delta => 0);
DROP TABLE pb_t;
