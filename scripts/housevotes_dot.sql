-- The README's picture: HouseVotes84 learned with nulls => 'category', its
-- graph as DOT (scripts/render_dot.sh renders it with graphviz).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS mrfdp;
\i scripts/housevotes_load.sql
SELECT mrf_dot(mrf_learn_pairwise(h, rho => 4, lambda => 2, nulls => 'category'), threshold => 0.25)
FROM housevotes h;
