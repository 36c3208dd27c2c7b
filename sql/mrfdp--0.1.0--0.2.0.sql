-- mrfdp 0.1.0 -> 0.2.0.  Every change made to sql/parts/ since 0.1.0 is
-- repeated here, so that ALTER EXTENSION mrfdp UPDATE leaves the catalog a
-- fresh CREATE EXTENSION mrfdp would build (test/upgrade checks it).  See the
-- README, "Changing the SQL".
\echo Use "ALTER EXTENSION mrfdp UPDATE TO '0.2.0'" to load this file. \quit
