-- mrfdp: differentially private learning of Markov random fields
\echo Use "CREATE EXTENSION mrfdp" to load this file. \quit

-- The extension's own schema: the privacy ledger's catalog and the
-- functions users call on it (20_ledger.sql), so \df mrfdp.* lists what
-- users call.  Everything users do not call (the aggregates' transition,
-- final, combine and serial functions, the types' I/O and receive
-- functions, triggers, Citus's aggregates and their parts, codes readers)
-- lives in mrfdp_internal; the aggregates and types refer to them by OID,
-- the C code by name (its SPI and Citus query text).  USAGE for every role:
-- Citus's queries name the internal aggregates as their caller.
CREATE SCHEMA mrfdp;
GRANT USAGE ON SCHEMA mrfdp TO PUBLIC;
CREATE SCHEMA mrfdp_internal;
GRANT USAGE ON SCHEMA mrfdp_internal TO PUBLIC;

-------------------------------------------------------------------------------
-- The model type: a varlena with binary parameters; text I/O is JSON.
-------------------------------------------------------------------------------
CREATE TYPE mrf;

CREATE FUNCTION mrf_in(cstring) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_out(mrf) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrfdp_internal.mrf_recv(internal) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_send(mrf) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE mrf (
	INPUT = mrf_in,
	OUTPUT = mrf_out,
	RECEIVE = mrfdp_internal.mrf_recv,
	SEND = mrf_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

CREATE FUNCTION mrf_to_jsonb(mrf) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (mrf AS jsonb) WITH FUNCTION mrf_to_jsonb(mrf);

-- Builds an Ising model from a p x p weight matrix (zero diagonal) and fields.
CREATE FUNCTION mrf_ising(weights float8[], fields float8[] DEFAULT NULL) RETURNS mrf
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-------------------------------------------------------------------------------
-- Accessors
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_info(mrf) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Names and labels of the accessors: the variables' names (the rows' column
-- names) and the values' labels (booleans, enum labels, declared domains),
-- kept in the model's metadata ("variables"); NULL when the model has none.
CREATE FUNCTION mrf_edges(model mrf, threshold float8 DEFAULT 0,
						  OUT i int, OUT j int, OUT weight float8,
						  OUT name_i text, OUT name_j text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION mrf_fields(model mrf, OUT i int, OUT a int, OUT theta float8,
						   OUT name text, OUT label text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- A model's variables: 1-based position, name and value labels (in code order).
CREATE FUNCTION mrf_variables(model mrf, OUT i int, OUT name text, OUT labels text[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The learned graph as a Graphviz DOT document: nodes named by the model's
-- variables, edge width by |weight|, sign by colour and style; a clique
-- model's edges join the variables that share a clique (post-processing).
CREATE FUNCTION mrf_dot(model mrf, threshold float8 DEFAULT 0) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Synthetic rows in the source's types: n rows of the row type of the third
-- argument (NULL::the_source_table), each variable's code turned into its
-- column's type through the model's labels.  method 'sample' draws the rows
-- independently; 'allocate' divides the n rows among the model's cells
-- through its junction tree, so that its marginals match up to rounding.
-- Post-processing: no budget.
CREATE FUNCTION mrf_synthesize(model mrf, n int, rowtype anyelement, seed bigint DEFAULT NULL,
							   burn_in int DEFAULT 1000, thin int DEFAULT 10,
							   method text DEFAULT 'sample')
	RETURNS SETOF anyelement
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- A new table holding n synthetic rows: created with the model's variable
-- names and the source columns' types (as mrf_synthesize fills them), then
-- filled.  Runs with the caller's rights; reads no relation (sampling is
-- post-processing: no budget).  Returns the rows inserted.
CREATE FUNCTION mrf_synthesize_into(model mrf, table_name text, n int, seed bigint DEFAULT NULL,
									burn_in int DEFAULT 1000, thin int DEFAULT 10,
									method text DEFAULT 'sample')
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY INVOKER
AS $synthesize_into$
-- No SET search_path: an unqualified table_name goes where the caller's
-- CREATE TABLE would put it.  So nothing here may resolve through the
-- caller's search_path: functions are pg_catalog's, named; no operator is
-- used whose operands could match another schema's better (text || integer,
-- jsonb ->> unknown would find an operator (text, integer) or (jsonb, jsonb)
-- declared by whoever can create in a schema on that path).
DECLARE
	doc jsonb;
	parts text[];
	nsp text;
	target text;
	vars jsonb;
	v jsonb;
	typ regtype;
	typmod int;
	base record;
	cols text := '';
	inserted bigint;
BEGIN
	IF model IS NULL OR table_name IS NULL OR n IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '22004',
			MESSAGE = 'mrf_synthesize_into needs a model, a table name and n';
	END IF;
	doc := model::pg_catalog.jsonb;
	IF pg_catalog.jsonb_extract_path_text(doc, 'kind') OPERATOR(pg_catalog.=) 'structure'::pg_catalog.text THEN
		RAISE EXCEPTION USING ERRCODE = '42809',
			MESSAGE = 'mrf_synthesize_into does not apply to models of kind structure',
			HINT = 'A structure is a graph: it has no distribution to sample from.';
	END IF;
	-- the name as CREATE TABLE reads it: [schema.]table, each part quoted or not
	parts := pg_catalog.parse_ident(table_name);
	IF pg_catalog.cardinality(parts) OPERATOR(pg_catalog.>) 2 THEN
		RAISE EXCEPTION USING ERRCODE = '22023',
			MESSAGE = pg_catalog.format('mrf_synthesize_into takes a table name or schema.table, not %s', table_name);
	END IF;
	-- an unqualified name goes where CREATE TABLE would put it
	nsp := CASE WHEN pg_catalog.cardinality(parts) OPERATOR(pg_catalog.=) 2 THEN parts[1]
				ELSE pg_catalog.current_schema() END;
	IF nsp IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = '3F000', MESSAGE = 'no schema has been selected to create in';
	END IF;
	target := pg_catalog.format('%I.%I', nsp, parts[pg_catalog.cardinality(parts)]);
	-- one column per variable: its name (x1, x2, ... without names), the
	-- source column's type, else text for labelled values, else integer codes
	vars := pg_catalog.jsonb_extract_path(doc, 'meta', 'variables');
	FOR i IN 1 .. pg_catalog.jsonb_extract_path_text(doc, 'p')::pg_catalog.int4 LOOP
		v := CASE WHEN pg_catalog.jsonb_typeof(vars) OPERATOR(pg_catalog.=) 'array'::pg_catalog.text
				  THEN pg_catalog.jsonb_extract_path(vars, (i OPERATOR(pg_catalog.-) 1)::pg_catalog.text) END;
		typ := NULL;
		IF pg_catalog.jsonb_exists(v, 'type') THEN
			typ := pg_catalog.to_regtype(pg_catalog.jsonb_extract_path_text(v, 'type'));
			IF typ IS NULL THEN
				RAISE EXCEPTION USING ERRCODE = '42704',
					MESSAGE = pg_catalog.format('type %s of the model''s variable %s does not exist',
												pg_catalog.jsonb_extract_path_text(v, 'type'), i),
					HINT = 'Create the type, or create the table yourself and use mrf_synthesize(model, n, NULL::the_table).';
			END IF;
			typmod := coalesce(pg_catalog.jsonb_extract_path_text(v, 'typmod')::pg_catalog.int4, -1);
			-- A domain's NOT NULL and CHECK constraints are its owner's code (a
			-- CHECK may call any function) and the model text can name any
			-- type: the column gets the domain's base type, so nothing a model
			-- names runs with the caller's rights.
			LOOP
				SELECT t.typtype, t.typbasetype, t.typtypmod INTO base
				FROM pg_catalog.pg_type t WHERE t.oid OPERATOR(pg_catalog.=) typ::pg_catalog.oid;
				EXIT WHEN base.typtype OPERATOR(pg_catalog.<>) 'd'::pg_catalog."char";
				typ := base.typbasetype;
				typmod := base.typtypmod;
			END LOOP;
			-- An enum is its owner's: the owner can rename its labels, or drop the
			-- new table's column with DROP TYPE ... CASCADE.  The model text can
			-- name any enum (whichever relation it claims to come from: a model
			-- is text anyone can write), so a column gets one only when the caller
			-- may act as the enum's owner, or the owner is a superuser (trusted
			-- anyway); other enums are refused.
			IF base.typtype OPERATOR(pg_catalog.=) 'e'::pg_catalog."char" AND NOT EXISTS
					(SELECT 1 FROM pg_catalog.pg_type t JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) t.typowner
					 WHERE t.oid OPERATOR(pg_catalog.=) typ::pg_catalog.oid
					   AND (r.rolsuper OR pg_catalog.pg_has_role(t.typowner, 'USAGE'))) THEN
				RAISE EXCEPTION USING ERRCODE = '42501',
					MESSAGE = pg_catalog.format('mrf_synthesize_into will not give the new table a column of enum type %s (variable %s)',
												typ, i),
					DETAIL = pg_catalog.format('The type belongs to role %s, who could rename its labels or drop the column with DROP TYPE ... CASCADE.',
											   (SELECT t.typowner::pg_catalog.regrole FROM pg_catalog.pg_type t
												WHERE t.oid OPERATOR(pg_catalog.=) typ::pg_catalog.oid)),
					HINT = 'Create the table yourself, with an enum type you own or a text column, and use mrf_synthesize(model, n, NULL::the_table).';
			END IF;
			-- and only the types the learners read (their input functions run no one's code)
			IF base.typtype OPERATOR(pg_catalog.<>) 'e'::pg_catalog."char" AND NOT
				typ::pg_catalog.oid OPERATOR(pg_catalog.=) ANY
					(ARRAY['pg_catalog.bool', 'pg_catalog.text', 'pg_catalog.varchar', 'pg_catalog.bpchar',
						   'pg_catalog.char', 'pg_catalog.int2', 'pg_catalog.int4',
						   'pg_catalog.int8', 'pg_catalog.numeric', 'pg_catalog.float4',
						   'pg_catalog.float8', 'pg_catalog.date', 'pg_catalog.timestamp',
						   'pg_catalog.timestamptz']::pg_catalog.regtype[]::pg_catalog.oid[]) THEN
				RAISE EXCEPTION USING ERRCODE = '42804',
					MESSAGE = pg_catalog.format('type %s of the model''s variable %s is not a type mrfdp learns from',
												typ, i),
					DETAIL = 'Models record booleans, enums, and text, character, "char" or integer columns, and binned numeric, floating-point, date and timestamp columns.',
					HINT = 'Create the table yourself and use mrf_synthesize(model, n, NULL::the_table).';
			END IF;
			IF NOT typ::pg_catalog.oid OPERATOR(pg_catalog.=) ANY
					(ARRAY['pg_catalog.varchar', 'pg_catalog.bpchar', 'pg_catalog.numeric', 'pg_catalog.timestamp',
						   'pg_catalog.timestamptz']::pg_catalog.regtype[]::pg_catalog.oid[]) THEN
				typmod := -1;
			END IF;
		END IF;
		cols := pg_catalog.concat(cols, CASE WHEN i OPERATOR(pg_catalog.>) 1 THEN ', ' END,
			pg_catalog.format('%I %s',
							  coalesce(pg_catalog.jsonb_extract_path_text(v, 'name'),
												  pg_catalog.concat('x', i)),
							  CASE WHEN typ IS NOT NULL THEN pg_catalog.format_type(typ, typmod)
								   WHEN pg_catalog.jsonb_typeof(pg_catalog.jsonb_extract_path(v, 'labels'))
										OPERATOR(pg_catalog.=) 'array'::pg_catalog.text THEN 'text'
								   ELSE 'integer' END));
	END LOOP;
	EXECUTE pg_catalog.format('CREATE TABLE %s (%s)', target, cols);
	EXECUTE pg_catalog.format('INSERT INTO %s SELECT * FROM @extschema@.mrf_synthesize($1, $2, NULL::%s, $3, $4, $5, $6)',
							  target, target)
		USING model, n, seed, burn_in, thin, method;
	GET DIAGNOSTICS inserted = ROW_COUNT;
	RETURN inserted;
END
$synthesize_into$;

-- Exact samples where possible, else chains with parallel tempering; VOLATILE: draws randomness.
CREATE FUNCTION mrf_sample(model mrf, n int, burn_in int DEFAULT 1000,
						   thin int DEFAULT 10, seed bigint DEFAULT NULL)
	RETURNS SETOF int[]
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- Learners running now in any session (needs mrfdp in shared_preload_libraries);
-- seconds_left: the current phase's time left at its pace so far (NULL
-- before an estimate: its first second or first hundredth of its work).
CREATE FUNCTION mrf_progress(OUT pid int, OUT learner text, OUT done bigint, OUT total bigint,
							 OUT percent float8, OUT started timestamptz, OUT seconds_left float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

-------------------------------------------------------------------------------
-- Budget conversions (docs/privacy.md 2); the arithmetic: src/core/privacy.c.
-------------------------------------------------------------------------------
CREATE FUNCTION mrf_zcdp_to_dp(rho float8, delta float8, method text DEFAULT 'tight')
	RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_dp_to_zcdp(epsilon float8) RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mrf_zcdp_for_dp(epsilon float8, delta float8, method text DEFAULT 'tight')
	RETURNS float8
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-------------------------------------------------------------------------------
-- Learner options: one jsonb document, validated here and again by the
-- learner.  NULL means "not given": the learner's default, which lives in
-- one table in src/pg/sqlapi/options.c (OptionDefaults) and nowhere else; the
-- named and protected forms declare those parameters DEFAULT NULL.
-------------------------------------------------------------------------------
-- The defaults table: learner (NULL: every learner taking the option),
-- option, default value.  Defaults computed from public sizes (iterations,
-- blocks) are not listed: each learner's plan computes them.
CREATE FUNCTION mrf_option_defaults(OUT learner text, OUT option text, OUT value jsonb)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION mrf_options(rho float8 DEFAULT NULL,
							epsilon float8 DEFAULT NULL,
							delta float8 DEFAULT NULL,
							lambda float8 DEFAULT NULL,
							iterations int DEFAULT NULL,
							mechanism text DEFAULT NULL,
							symmetrize boolean DEFAULT NULL,
							k int DEFAULT NULL,
							t int DEFAULT NULL,
							objective text DEFAULT NULL,
							query_release text DEFAULT NULL,
							eta float8 DEFAULT NULL,
							blocks int DEFAULT NULL,
							model text DEFAULT NULL,
							method text DEFAULT NULL,
							cliques jsonb DEFAULT NULL,
							tolerance float8 DEFAULT NULL,
							em_iterations int DEFAULT NULL,
							domains jsonb DEFAULT NULL,
							nulls text DEFAULT NULL,
							workload jsonb DEFAULT NULL,
							bins jsonb DEFAULT NULL,
							rounds int DEFAULT NULL,
							one_way_share float8 DEFAULT NULL,
							max_model_cells int DEFAULT NULL,
							schedule text DEFAULT NULL)
	RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
