/*
 * mrfdp.h - settings shared by the PostgreSQL layer of mrfdp.
 */
#ifndef MRFDP_H
#define MRFDP_H

/* mrfdp.test_seed: -1 (off) or a seed that makes learners reproducible and not private. */
extern int	MrfTestSeed;

/* mrfdp.blas_threads: OpenBLAS threads a learner may use in this backend. */
extern int	MrfBlasThreads;

/* mrfdp.max_learner_memory, in kB: the largest working set a learner may plan. */
extern int	MrfMaxLearnerMemory;

/* mrfdp.progress: emit NOTICEs while learning. */
extern bool MrfProgress;

/* mrfdp.allow_drop_with_budgets: a superuser allows dropping mrfdp while budgets exist. */
extern bool MrfAllowDropWithBudgets;

#endif
