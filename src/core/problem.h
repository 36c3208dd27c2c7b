/*
 * problem.h - the validation contract between the core and its host.  A
 * check (MrfIsingValidate, MrfPairwiseValidate, MrfTwiseValidate,
 * MrfCliqueSetCheck) reads public values only and returns NULL (accepted)
 * or a problem: a static, lower-case sentence saying what is wrong, with no
 * trailing period.  Every sentence a check can return is a named constant
 * of its header, so a host may recognise one by address and add the public
 * numbers and a hint; anything else it reports as the sentence itself.  The
 * host raises problems in one place with its own error codes (the
 * PostgreSQL glue: MrfRaise in src/pg/driver/refusal.c).
 */
#ifndef MRF_PROBLEM_H
#define MRF_PROBLEM_H

/* NULL (accepted), or the sentence of what a check refuses. */
typedef const char *MrfProblem;

#endif
