/*
 * cliques_synth.h - the synthetic study of Bernstein et al. 2017, Sec. 4.1,
 * shared by test_cliques.c and bench/bench_cliques.c: 10-node chains of
 * overlapping triples and connected Erdos-Renyi graphs, Dirichlet(1)
 * potentials, data drawn exactly from the model, KL to the truth.
 */
#ifndef MRF_CLIQUES_SYNTH_H
#define MRF_CLIQUES_SYNTH_H

#include <stdint.h>

#include "cliques.h"

typedef enum SynthGraph
{
	SYNTH_CHAIN = 0,			/* cliques {i, i+1, i+2} */
	SYNTH_ER = 1				/* edges of a connected G(p, q) */
} SynthGraph;

/* Edge probability of the Erdos-Renyi graphs (about 13 edges at p = 10). */
#define SYNTH_ER_PROB 0.3

/* Builds the clique set of a graph (ER drawn with rng, redrawn until connected). */
MrfStatus	SynthCliques(SynthGraph graph, int p, int k, MrfRng *rng,
						 MrfCliqueSet **out);

/* log of a Dirichlet(1) draw per clique table. */
void		SynthPotentials(const MrfCliqueSet *set, MrfRng *rng, double *logpot);

/* One trial's KL divergences and times. */
typedef struct SynthTrial
{
	double		kl_naive;
	double		kl_cgm;
	double		kl_nonprivate;	/* naive MLE on the true counts */
	double		sec_naive;		/* fit times (release excluded) */
	double		sec_cgm;
	MrfCliquesReport rep_cgm;
	MrfCliquesReport rep_naive;
} SynthTrial;

/*
 * Draws n rows from (set, truth), releases the tables at epsilon with rng,
 * fits naive and CGM with opt (method ignored), and measures KL(truth ||
 * learned) by enumeration.
 */
MrfStatus	SynthRun(const MrfCliqueSet *set, const double *truth, int64_t n,
					 double epsilon, const MrfCliquesOptions *opt, MrfRng *rng,
					 SynthTrial *out);

#endif
