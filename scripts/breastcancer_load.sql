-- BreastCancer (Wisconsin breast cancer biopsies: 699 rows, a sample id,
-- nine cytology scores 1-10, bare_nuclei NULL in 16 rows, the class) into
-- table breast_cancer, from the CSV scripts/breastcancer.sh writes (psql
-- variable csv, default /tmp/breastcancer.csv).  The schema is what a
-- careful owner writes: smallint scores with CHECK constraints, a text
-- class with its values in a CHECK; the id is the sample's code number.
\if :{?csv}
\else
\set csv /tmp/breastcancer.csv
\endif
CREATE TABLE breast_cancer (
	id text,
	cl_thickness smallint CHECK (cl_thickness BETWEEN 1 AND 10),
	cell_size smallint CHECK (cell_size BETWEEN 1 AND 10),
	cell_shape smallint CHECK (cell_shape BETWEEN 1 AND 10),
	marg_adhesion smallint CHECK (marg_adhesion BETWEEN 1 AND 10),
	epith_c_size smallint CHECK (epith_c_size BETWEEN 1 AND 10),
	bare_nuclei smallint CHECK (bare_nuclei BETWEEN 1 AND 10),
	bl_cromatin smallint CHECK (bl_cromatin BETWEEN 1 AND 10),
	normal_nucleoli smallint CHECK (normal_nucleoli BETWEEN 1 AND 10),
	mitoses smallint CHECK (mitoses BETWEEN 1 AND 10),
	class text CHECK (class IN ('benign', 'malignant'))
);
-- (psql does not expand variables inside \copy: build the command)
\set copycmd '\\copy breast_cancer FROM ' :'csv' ' WITH (FORMAT csv, HEADER)'
:copycmd
