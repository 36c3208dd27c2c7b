-------------------------------------------------------------------------------
-- Descriptions for \df+, \dT+, \dt+, \dv+ and obj_description(): every
-- function, aggregate, type, table, view and event trigger of the extension.
-- Functions are described by name, for every signature of that name among
-- the extension's members, so a changed signature keeps its description; a
-- name that matches no member is an error, so the list cannot go stale.
-- sql/mrfdp--0.1.0--0.2.0.sql repeats this block as its last statement
-- (keep it last there, and this file last here).
-- The privacy arguments are in docs/privacy.md.
-------------------------------------------------------------------------------
DO $comments$
DECLARE
	ext oid := (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'mrfdp');
	d record;
	o record;
	found boolean;
BEGIN
	FOR d IN SELECT * FROM (VALUES
	-- the model type
	('type', 'mrf', 'A Markov random field learned or built by mrfdp: kind, sizes, parameters and privacy metadata. Text form: a JSON document; casts to jsonb.'),
	('function', 'mrf_in', 'Input function of type mrf: reads the JSON text form.'),
	('function', 'mrf_out', 'Output function of type mrf: writes the JSON text form (doubles as shortest exact decimals).'),
	('function', 'mrf_recv', 'Binary input function of type mrf.'),
	('function', 'mrf_send', 'Binary output function of type mrf.'),
	('function', 'mrf_to_jsonb', 'The model as a jsonb document (the cast mrf::jsonb).'),
	('function', 'mrf_ising', 'Builds an Ising model from a p x p symmetric weight matrix with zero diagonal and optional fields (-1/+1 spins).'),
	-- accessors
	('function', 'mrf_info', 'Kind, sizes and privacy metadata of a model (learner, notion and amounts spent, neighbours, mechanism, iterations, whether a test seed made it not private).'),
	('function', 'mrf_edges', 'Edges (i, j, weight) of a model whose weight magnitude exceeds threshold; 1-based variables, i < j.'),
	('function', 'mrf_fields', 'Fields (i, a, theta) of a model: theta of variable i at value a (a = 1 for +1 in binary models).'),
	('function', 'mrf_weights', 'Pairwise weights W_ij(a, b) of a k-ary pairwise model: 1-based i, j, values a, b in 0..k-1.'),
	('function', 'mrf_monomials', 'Every monomial (vars, coef) of a t-wise model, sizes 1..t, zero coefficients included.'),
	('function', 'mrf_potentials', 'Log-potential of every assignment of every clique of a clique model: each variable''s code in its own alphabet, with the clique''s names and the assignment''s labels.'),
	('function', 'mrf_marginals', 'Marginal probability of every assignment of every clique of a clique model (exact on a junction tree, loopy belief propagation otherwise), in the layout of mrf_potentials.'),
	('function', 'mrf_variables', 'The variables of a model: 1-based position, name (the rows'' column names) and value labels, when the model keeps them.'),
	('function', 'mrf_dot', 'The graph of a model as a Graphviz DOT document: nodes named by its variables, edges above threshold, width by |weight|, sign by colour and style; a clique model''s edges join the variables that share a clique.'),
	('function', 'mrf_synthesize', 'n synthetic rows of a given row type (e.g. NULL::the_source_table) sampled from a model (method ''sample'') or allocated through its junction tree so that its marginals match up to rounding (''allocate''), codes turned into the columns'' types through the model''s labels; no budget.'),
	('function', 'mrf_synthesize_into', 'Creates a table with the model''s variable names and source column types and fills it with n synthetic rows (mrf_synthesize); the caller''s rights, no budget. Returns the rows inserted.'),
	('function', 'mrf_sample', 'n samples from a model: exact (enumeration, or through its junction tree) where possible; otherwise 4 chains with parallel tempering (burn_in rounds, then one sample of each chain every thin rounds), reported with their split R-hat in a NOTICE.'),
	('function', 'mrf_progress', 'Learners running now (pid, learner, work done and total, the seconds left at the current phase''s pace once it has run a second and a hundredth of its work) that the caller may see; needs mrfdp in shared_preload_libraries.'),
	-- budget conversions
	('function', 'mrf_zcdp_to_dp', 'Epsilon of the (epsilon, delta)-DP guarantee implied by rho-zCDP: tight (Canonne-Kamath-Steinke 2020) or bs16 (Bun-Steinke 2016).'),
	('function', 'mrf_dp_to_zcdp', 'rho of the zCDP guarantee implied by pure epsilon-DP: epsilon^2 / 2.'),
	('function', 'mrf_zcdp_for_dp', 'Largest rho whose zCDP guarantee converts to at most the given (epsilon, delta).'),
	-- options and learners
	('function', 'mrf_options', 'The options document of a learner aggregate, from named arguments (NULL: not given); validated here and again by the learner.'),
	('function', 'mrf_option_defaults', 'The default of every learner option (learner NULL: every learner taking it); an option not given, or given as NULL, takes this value.'),
	('function', 'mrf_learn_ising', 'Learns a binary Ising model under rho-zCDP (private Frank-Wolfe, Zhang et al. 2020 Algorithm 2). Named form, rewritten into mrf_learn_ising_agg; needs the library preloaded.'),
	('function', 'mrf_learn_ising_agg', 'Aggregate form of mrf_learn_ising: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_ising_from', 'Learns an Ising model from a protected relation the caller may learn from but not read; charged to its privacy budget before the model is returned.'),
	('function', 'mrf_learn_pairwise', 'Learns a k-ary pairwise model under rho-zCDP (Zhang et al. 2020 Algorithm 3). Named form, rewritten into mrf_learn_pairwise_agg; needs the library preloaded.'),
	('function', 'mrf_learn_pairwise_agg', 'Aggregate form of mrf_learn_pairwise: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_pairwise_from', 'Learns a k-ary pairwise model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	('function', 'mrf_learn_twise', 'Learns a binary t-wise model under rho-zCDP (Zhang et al. 2020 Algorithms 4 and 5). Named form, rewritten into mrf_learn_twise_agg; needs the library preloaded.'),
	('function', 'mrf_learn_twise_agg', 'Aggregate form of mrf_learn_twise: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_twise_from', 'Learns a binary t-wise model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	('function', 'mrf_learn_structure', 'Learns the graph of a model: stable mode over disjoint blocks under (epsilon, delta)-DP, or method threshold under rho-zCDP; NULL when no graph clears the threshold (still charged). Named form, rewritten into mrf_learn_structure_agg.'),
	('function', 'mrf_learn_structure_agg', 'Aggregate form of mrf_learn_structure: one structure per group, options from mrf_options().'),
	('function', 'mrf_learn_structure_from', 'Learns a structure from a protected relation the caller may learn from but not read; charged before the result is returned.'),
	('function', 'mrf_structure_rows_needed', 'Plans the stable mode from public values only: blocks, threshold tau, rows per block and rows in all for a given p, eta, epsilon, delta, for model ising (default), pairwise (with k) or twise (with t); the rows per block are fitted to measured exact recovery.'),
	('function', 'mrf_learn_cliques', 'Learns a model of given cliques under pure epsilon-DP from noisy clique tables (Bernstein et al. 2017: naive MLE or CGM-EM); rows may mix alphabets (booleans, enums, columns with declared domains; nulls policy). Named form, rewritten into mrf_learn_cliques_agg.'),
	('function', 'mrf_learn_cliques_agg', 'Aggregate form of mrf_learn_cliques: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_cliques_from', 'Learns a clique model from a protected relation the caller may learn from but not read (per-variable alphabets, domains and nulls as the named form; values outside a domain are substituted row by row); charged before the model is returned.'),
	('function', 'mrf_learn_mst', 'Learns a tree-structured clique model of a whole table under rho-zCDP by MST (McKenna, Miklau, Sheldon 2021): discrete Gaussian one-way marginals, an exponential-mechanism spanning tree of pairs, their discrete Gaussian two-way marginals, mirror-descent estimation; rows may mix alphabets (booleans, enums, declared domains; nulls policy). Named form, rewritten into mrf_learn_mst_agg.'),
	('function', 'mrf_learn_mst_agg', 'Aggregate form of mrf_learn_mst: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_mst_from', 'Learns an MST model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	('function', 'mrf_marginal_error', 'NOT PRIVATE, for those who may read the relation (SECURITY INVOKER: needs SELECT on it; charges nothing): per size of set (ways, default 1, 2, 3), the mean and largest L1 error sum |P_model - N/n| (twice the total variation) of a model''s exact marginals (clique, Ising and pairwise models) of every set of that many variables against the relation''s rows.'),
	('function', 'mrf_marginal', 'The exact marginal distribution of any set of a model''s variables (names, or numbers for a model without names), one row per cell with names and labels as mrf_marginals: clique, Ising and pairwise models, by elimination on the calibrated junction tree (54000 when the set''s table exceeds mrfdp.max_learner_memory).'),
	('function', 'mrf_marginal_errors', 'NOT PRIVATE, for those who may read the relation (SECURITY INVOKER: needs SELECT on it; charges nothing): the L1 error sum |P_model - N/n| of a model''s exact marginal (clique, Ising and pairwise models) of every set of one, two, three (ways) variables against the relation''s rows, one row per set.'),
	('function', 'mrf_learn_aim', 'Learns a clique model of a whole table under rho-zCDP by AIM (McKenna, Mullins, Sheldon, Miklau 2022): discrete Gaussian one-way marginals, then rounds that select the worst-approximated workload marginal by the exponential mechanism within a junction-tree size cap, measure it and re-estimate, with budget annealing; workload by column names. Option schedule: auto (the default) starts the rounds from MST''s private tree (a third of rho on the one-ways, 0.6 on the tree, 8 rounds; 0.45 and 16 rounds on moderately rich ones) on small or noisy tables and runs the paper''s schedule (16 p rounds, capped) on rich ones, chosen from n, p and rho; seeded and paper name one. Named form, rewritten into mrf_learn_aim_agg.'),
	('function', 'mrf_learn_aim_agg', 'Aggregate form of mrf_learn_aim: one model per group, options from mrf_options().'),
	('function', 'mrf_learn_aim_plan', 'What mrf_learn_aim would do with columns of these alphabet sizes, this rho and the options rounds, one_way_share, max_model_cells and schedule (checked as a release checks them), from public sizes only (names no relation, reads no row, charges nothing): rounds at the initial rates, the one-way share, noise and selection rates, candidates, the junction tree cap under mrfdp.max_learner_memory, a rough time estimate counting mrfdp.learner_threads and, with n, the schedule the release runs and the planned memory.'),
	('function', 'mrf_learn_aim_from', 'Learns an AIM model from a protected relation the caller may learn from but not read; charged before the model is returned.'),
	-- support functions (schema mrfdp)
	('function', 'mrf_ising_accum', 'Aggregate support: plans the Ising release at a group''s first row, then packs its rows as bits.'),
	('function', 'mrf_pairwise_accum', 'Aggregate support: plans the pairwise release at a group''s first row, then stores its rows as bytes.'),
	('function', 'mrf_twise_accum', 'Aggregate support: plans the t-wise release at a group''s first row, then packs its rows as bits.'),
	('function', 'mrf_cliques_accum', 'Aggregate support: plans the clique release at a group''s first row, then stores its rows as bytes.'),
	('function', 'mrf_structure_accum', 'Aggregate support: checks the structure options at a group''s first row, then packs its rows.'),
	('function', 'mrf_rows_combine', 'Aggregate support: merges two partial row sets (parallel aggregation).'),
	('function', 'mrf_rows_serialize', 'Aggregate support: serialises a partial row set for a parallel worker.'),
	('function', 'mrf_rows_deserialize', 'Aggregate support: reads a serialised partial row set.'),
	('function', 'mrf_ising_final', 'Aggregate support: learns, charges and releases the Ising model of a group.'),
	('function', 'mrf_pairwise_final', 'Aggregate support: learns, charges and releases the pairwise model of a group.'),
	('function', 'mrf_twise_final', 'Aggregate support: learns, charges and releases the t-wise model of a group.'),
	('function', 'mrf_structure_final', 'Aggregate support: learns, charges and releases the structure of a group.'),
	('function', 'mrf_cliques_final', 'Aggregate support: learns, charges and releases the clique model of a group.'),
	('function', 'mrf_mst_final', 'Aggregate support: learns, charges and releases the MST model of a group.'),
	('function', 'mrf_mst_accum', 'Aggregate support: plans the MST release at a group''s first row, then stores its rows as bytes.'),
	('function', 'mrf_aim_final', 'Aggregate support: learns, charges and releases the AIM model of a group.'),
	('function', 'mrf_aim_accum', 'Aggregate support: plans the AIM release at a group''s first row (its workload''s columns included), then stores its rows as bytes.'),
	-- Citus: aggregates with a state Citus combines, and their support
	('function', 'mrf_learn_ising_citus_agg', 'mrf_learn_ising_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_pairwise_citus_agg', 'mrf_learn_pairwise_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_twise_citus_agg', 'mrf_learn_twise_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_structure_citus_agg', 'mrf_learn_structure_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_cliques_citus_agg', 'mrf_learn_cliques_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_mst_citus_agg', 'mrf_learn_mst_agg with a bytea state Citus combines: workers pack rows, the coordinator learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_learn_aim_citus_agg', 'mrf_learn_aim_agg with a bytea state Citus combines: workers count the tables AIM may read (or pack rows when those are too large), the coordinator adds them and learns; mrfdp uses it on Citus tables.'),
	('function', 'mrf_citus_combine', 'Aggregate support (Citus): concatenates two packed row states with the same options and shape; checks a state that arrives as text.'),
	('function', 'mrf_learn_ising_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_pairwise_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_twise_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_structure_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_cliques_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_mst_citus_accum', 'Aggregate support (Citus): packs one sample into a bytea row state.'),
	('function', 'mrf_learn_aim_citus_accum', 'Aggregate support (Citus): counts one sample into the tables of a bytea counts state (or packs it into a row state).'),
	('function', 'mrf_learn_ising_citus_final', 'Aggregate support (Citus): learns, charges and releases the Ising model of a packed row state.'),
	('function', 'mrf_learn_pairwise_citus_final', 'Aggregate support (Citus): learns, charges and releases the pairwise model of a packed row state.'),
	('function', 'mrf_learn_twise_citus_final', 'Aggregate support (Citus): learns, charges and releases the t-wise model of a packed row state.'),
	('function', 'mrf_learn_structure_citus_final', 'Aggregate support (Citus): learns, charges and releases the structure of a packed row state.'),
	('function', 'mrf_learn_cliques_citus_final', 'Aggregate support (Citus): learns, charges and releases the clique model of a packed row state.'),
	('function', 'mrf_learn_mst_citus_final', 'Aggregate support (Citus): learns, charges and releases the MST model of a packed row state.'),
	('function', 'mrf_learn_aim_citus_final', 'Aggregate support (Citus): learns, charges and releases the AIM model of a counts or packed row state.'),
	-- distributed Frank-Wolfe
	('function', 'mrf_fw_ising_scores_agg', 'One Frank-Wolfe iteration''s exact score sums of a binary learner (Ising, t-wise, structure''s threshold method) over a distributed table''s shards; called only by the mrf_learn_*_from functions.'),
	('function', 'mrf_fw_kary_scores_agg', 'One Frank-Wolfe iteration''s exact score sums of the pairwise k-ary learner (or structure''s threshold method on a pairwise model) over a distributed table''s shards; called only by the mrf_learn_*_from functions.'),
	('function', 'mrf_fw_kary_codes', 'Distributed Frank-Wolfe support: a k-ary sample (a row of columns, an enum array) as the codes the protected path''s reader reads, or NULL when it cannot; a function of its argument alone.'),
	('function', 'mrf_fw_binary_codes', 'Distributed Frank-Wolfe support: a binary sample (a row of boolean columns) as the boolean[] the protected path''s reader reads, or NULL when it cannot; a function of its argument alone.'),
	('function', 'mrf_fw_scores_accum', 'Aggregate support (distributed Frank-Wolfe): reads one sample as the protected path does and packs it.'),
	('function', 'mrf_fw_scores_combine', 'Aggregate support (distributed Frank-Wolfe): adds two parts'' score sums; checks a state that arrives as text.'),
	('function', 'mrf_fw_scores_final', 'Aggregate support (distributed Frank-Wolfe): the sums, to the mrf_learn_*_from functions only; refuses anywhere else.'),
	-- the stable mode's blocks on the shards (privacy.md 7.3)
	('function', 'mrf_stable_blocks_agg', 'The stable mode''s blocks of a distributed table cut and learned on its shards (the blocks'' non-private structures); called only by mrf_learn_structure_from.'),
	('function', 'mrf_stable_blocks_accum', 'Aggregate support (stable mode on the shards): reads one sample as the protected path does and keeps it in a uniformly drawn block of its shard.'),
	('function', 'mrf_stable_blocks_combine', 'Aggregate support (stable mode on the shards): puts two parts'' block structures side by side; checks a state that arrives as text.'),
	('function', 'mrf_stable_blocks_final', 'Aggregate support (stable mode on the shards): the structures, to mrf_learn_structure_from only; refuses anywhere else.'),
	('function', 'mrf_fw_kept', 'Tablesample method (distributed Frank-Wolfe): on a shard whose part the serving backend keeps, stops after one row; else every row. Used by the mrf_learn_*_from functions.'),
	-- the privacy ledger
	('schema', 'mrfdp', 'mrfdp''s privacy ledger (budgets, learning grants, the append-only ledger) and the functions its owners and analysts call on it.'),
	('schema', 'mrfdp_internal', 'What users do not call: the aggregates'' support functions, the types'' I/O, triggers, Citus''s aggregates and their parts.'),
	('type', 'relation_ref', 'A reference to a relation in mrfdp''s catalog: dumped as its name, read back by name ("-" when the relation is missing).'),
	('type', 'role_ref', 'A reference to a role in mrfdp''s catalog: dumped as its name, read back by name ("-" when the role is missing).'),
	('function', 'relation_ref_in', 'Input function of mrfdp.relation_ref: a relation name ("-" with a warning when missing).'),
	('function', 'relation_ref_out', 'Output function of mrfdp.relation_ref: the qualified relation name, or "-".'),
	('function', 'role_ref_in', 'Input function of mrfdp.role_ref: a role name ("-" with a warning when missing).'),
	('function', 'role_ref_out', 'Output function of mrfdp.role_ref: the role name, or "-".'),
	('table', 'budget', 'One row per protected relation: its total privacy budget and the exact sums of what its releases spent. Written only through mrfdp.protect() and the charge worker.'),
	('table', 'grants', 'Roles allowed to learn from a protected relation through the mrf_learn_*_from functions (mrfdp.grant_learning).'),
	('table', 'learning_grantees', 'Empty marker table: a role with a learning grant holds REFERENCES on it, so DROP ROLE is refused while the grant exists.'),
	('table', 'ledger', 'Append-only: one row per release and relation read (protected or not), with the amounts charged and the names as they were at release time.'),
	('table', 'parked', 'Budgets, grants and ledger rows of protected relations dropped in the current transaction, until it ends: a table renamed to such a name in it (a Citus conversion) claims them.'),
	('view', 'budget_status', 'Budget, spent and remaining per protected relation, for its owner, its granted roles and superusers; the remaining_* columns after releases are the largest amounts a release may ask for now (the _from ones on the protected path, its count''s share included).'),
	('view', 'learning_grants', 'The learning grants the current role may see: every grant of the relations it owns, and its own.'),
	('type', 'protected_budget', 'What mrfdp.protect() returns: the budget set, the total rho it allows (and as typed on the protected path), and what is left of each now.'),
	('view', 'releases', 'The ledger rows the current role may read: its own releases and those from relations it owns or owned at release time.'),
	('function', 'protect', 'Protects a relation with a total privacy budget (epsilon, delta; optional rho_cap), or changes it (never below what is spent, with a NOTICE); returns the budget and the rho it allows. Owner or superuser only.'),
	('function', 'grant_learning', 'Lets a role learn from a protected relation through the mrf_learn_*_from functions without reading it. Owner or superuser only.'),
	('function', 'revoke_learning', 'Ends a role''s learning grant on a protected relation. Owner or superuser only.'),
	('function', 'remaining', 'What a relation''s budget can still spend, each amount fitting if charged alone now (rho, pure epsilon, approximate epsilon at delta, approximate delta), what was spent, and the largest rho and epsilons to type on the protected path (_from: its count''s share included).'),
	('function', 'spent_epsilon', 'Total epsilon spent, composing a relation''s spent sums as the ledger does (docs/privacy.md, section 9).'),
	('function', 'exact_numeric', 'The exact decimal value of a float8, as the ledger stores charges.'),
	('function', 'holds_learning_marker', 'Whether a role itself holds the learning marker privilege on mrfdp.learning_grantees.'),
	('function', 'ledger_append_only', 'Trigger: refuses UPDATE, DELETE and TRUNCATE of the ledger (except clearing a dropped relation''s OID, and settling the rows read of a protected release charged before its read).'),
	('function', 'budget_arriving', 'Trigger: skips a restored budget whose relation is missing.'),
	('function', 'grant_arriving', 'Trigger: gives a new grant''s role the marker privilege, skipping a restored grant whose relation or role is missing.'),
	('function', 'grant_gone', 'Trigger: takes the marker privilege from a role whose last grant is gone.'),
	('function', 'ledger_arriving', 'Trigger: records names with new ledger rows and clears references a restore could not resolve.'),
	('function', 'forget_dropped', 'Event trigger function: a dropped relation loses its budget and grants; its ledger rows keep its name. They are parked first, for a table renamed to its name in the same transaction (a Citus conversion) to claim.'),
	('function', 'claim_parked', 'Event trigger function: a table renamed to the name of a protected relation dropped in the same transaction (a Citus conversion) takes its budget, grants and ledger rows.'),
	('function', 'forget_parked', 'Trigger (deferred to commit): forgets the transaction''s parked budgets.'),
	('function', 'forget_revoked', 'Event trigger function: deletes learning grants voided by DROP OWNED or REVOKE.'),
	('function', 'refuse_drop_with_budgets', 'Event trigger function: refuses DROP EXTENSION mrfdp (and drops that would include it) while budgets or ledger rows exist, unless mrfdp.allow_drop_with_budgets is on.'),
	('event trigger', 'mrfdp_forget_dropped', 'Drops the budget and grants of a dropped protected relation.'),
	('event trigger', 'mrfdp_claim_parked', 'Gives a protected relation''s budget, grants and ledger rows to the table a Citus conversion renamed to its name.'),
	('event trigger', 'mrfdp_forget_revoked', 'Deletes learning grants voided by DROP OWNED or REVOKE.'),
	('event trigger', 'mrfdp_refuse_drop_with_budgets', 'Refuses to drop mrfdp while budgets or ledger rows exist.')
	) AS v(kind, name, description)
	LOOP
		found := false;
		IF d.kind = 'function' THEN
			FOR o IN SELECT p.oid::pg_catalog.regprocedure AS f, p.prokind
					 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_depend e
						  ON e.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND e.objid = p.oid
					 WHERE e.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
					   AND e.refobjid = ext AND e.deptype = 'e' AND p.proname = d.name
			LOOP
				EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
										  CASE WHEN o.prokind = 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
										  o.f, d.description);
				found := true;
			END LOOP;
		ELSIF d.kind = 'type' THEN
			FOR o IN SELECT t.oid::pg_catalog.regtype AS t
					 FROM pg_catalog.pg_type t JOIN pg_catalog.pg_depend e
						  ON e.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND e.objid = t.oid
					 WHERE e.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
					   AND e.refobjid = ext AND e.deptype = 'e' AND t.typname = d.name
			LOOP
				EXECUTE pg_catalog.format('COMMENT ON TYPE %s IS %L', o.t, d.description);
				found := true;
			END LOOP;
		ELSIF d.kind IN ('table', 'view') THEN
			FOR o IN SELECT c.oid::pg_catalog.regclass AS r
					 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_depend e
						  ON e.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND e.objid = c.oid
					 WHERE e.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
					   AND e.refobjid = ext AND e.deptype = 'e' AND c.relname = d.name
					   AND c.relkind = CASE d.kind WHEN 'view' THEN 'v' ELSE 'r' END
			LOOP
				EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L', upper(d.kind), o.r, d.description);
				found := true;
			END LOOP;
		ELSIF d.kind IN ('schema', 'event trigger') THEN
			EXECUTE pg_catalog.format('COMMENT ON %s %I IS %L', upper(d.kind), d.name, d.description);
			found := true;
		END IF;
		IF NOT found THEN
			RAISE EXCEPTION 'no % % in extension mrfdp to describe', d.kind, d.name;
		END IF;
	END LOOP;
END $comments$;
