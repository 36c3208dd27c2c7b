/*
 * mrfdp.h - the setting mrfdp.c defines itself; every other setting is
 * defined by the module that reads it (release.h, catalog_guard.c, ...).
 */
#ifndef MRFDP_H
#define MRFDP_H

/* mrfdp.blas_threads: OpenBLAS threads a learner may use in this backend. */
extern int	MrfBlasThreads;

#endif
