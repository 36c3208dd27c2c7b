-- HouseVotes84 (1984 US House roll calls: 435 members, party and 16 votes,
-- NULL where a member did not vote) into table housevotes, from the CSV
-- scripts/housevotes.sh writes (psql variable csv, default
-- /tmp/housevotes84.csv).  Column names after mlbench's documentation.
\if :{?csv}
\else
\set csv /tmp/housevotes84.csv
\endif
CREATE TYPE party AS ENUM ('democrat', 'republican');
CREATE TYPE vote AS ENUM ('n', 'y');
CREATE TABLE housevotes (
	party party,
	handicapped_infants vote, water_project vote, budget_resolution vote,
	physician_fee_freeze vote, el_salvador_aid vote, religious_groups vote,
	satellite_test_ban vote, nicaraguan_contras vote, mx_missile vote,
	immigration vote, synfuels_cutback vote, education_spending vote,
	superfund_right_to_sue vote, crime vote, duty_free_exports vote,
	south_africa_export vote
);
-- (psql does not expand variables inside \copy: build the command)
\set copycmd '\\copy housevotes FROM ' :'csv' ' WITH (FORMAT csv, HEADER)'
:copycmd
