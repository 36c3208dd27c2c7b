/*
 * sqlapi/named_call.h - rewrite of named learner calls into aggregate calls.
 *
 * mrf_learn_ising(x, rho => 0.5) is a plain function with named, defaulted
 * parameters (PostgreSQL rejects named arguments in aggregate calls).  A
 * post_parse_analyze_hook turns each such call into a call of the aggregate
 * mrf_learn_ising_agg(x, mrf_options(rho => 0.5, ...)) of the same schema.
 */
#ifndef MRFDP_NAMED_CALL_H
#define MRFDP_NAMED_CALL_H

/*
 * Installs the post_parse_analyze_hook (chaining any previous one).  Called
 * from _PG_init; a second call does nothing.
 */
extern void MrfInstallNamedCallHook(void);

#endif
