/*
 * cliques.c - clique models from noisy sufficient statistics (Bernstein et
 * al., ICML 2017; privacy.md 8): the release, naive MLE, CGM-EM, and the
 * model's marginals and KL divergence (its sampler is in sample.c).
 *
 * Privacy.  The only access to the rows is MrfCliquesCount; its tables enter
 * MrfCliquesRelease, which adds exact discrete Laplace noise with the scale
 * privacy.c calibrates (Delta1 = 2m under replace-one; the paper's add/remove
 * setting has Delta1 = m, so its epsilon is twice ours for the same noise).
 * Everything after the release reads only the noisy tables, n and public
 * options: post-processing.
 *
 * Naive MLE.  Each noisy table y_C / n is projected onto the simplex (Duchi
 * et al. 2008) and a pseudo-count alpha is mixed in: tau_C = (n mu_C + alpha)
 * / (n + alpha k^|C|).  The pathology (paper, Sec. 3.1): noise makes many
 * projected cells exactly 0, and a zero target has no finite MLE (the
 * likelihood grows as psi -> -infinity); moreover the projected tables of
 * overlapping cliques disagree on their common variables, and then no model
 * matches them all, so the unregularised likelihood of a loopy model is
 * unbounded.  The pseudo-count keeps every target positive; a small ridge
 * keeps the loopy fit finite.  On a junction tree the fit is the closed form
 * psi_C = log tau_C - log tau_C(S), S = C n parent(C), with the separator
 * marginal taken from the child's own table: the MLE of the directed
 * factorisation root marginal x conditionals, which is the MLE of the model
 * when the tables agree and stays well defined when they do not.
 *
 * CGM-EM.  The true counts are latent.  E-step: non-linear belief
 * propagation (Sun, Sheldon, Kumar, ICML 2015; the paper's Algorithm 1):
 * theta' <- (1 - g) theta' + g (theta + d/dn log p(y | n)), n = n_rows
 * BP(theta'), which solves the approximate MAP problem (paper Eq. 6) exactly
 * on a junction tree.  The Laplace log-likelihood -|y - n| / b has a kink at
 * y = n; it is smoothed to -sqrt((y - n)^2 + delta^2) / b (pseudo-Huber,
 * delta = smoothing x b), whose gradient is (y - n) / (b sqrt((y - n)^2 +
 * delta^2)), bounded by 1/b.  The damping g adapts: halved whenever the
 * residual grows, regrown by 10% while it shrinks.  M-step: the MLE of the
 * inferred counts (closed form on a junction tree; elsewhere gradient ascent
 * with a ridge that vanishes as 1/n, since EM amplifies a fixed one into a
 * bias that grows with n).  EM starts from the
 * naive MLE, which matters: the likelihood gradient is at most 1/b per cell,
 * so one EM step moves a log-potential by at most about 1/b and starting
 * anywhere far would need many steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cliques.h"
#include "privacy.h"
#include "simplex.h"

/* Defaults of MrfCliquesOptions. */
#define CLIQUES_DEFAULT_PSEUDOCOUNT 1.0
#define CLIQUES_DEFAULT_EM_ITERATIONS 300
#define CLIQUES_DEFAULT_EM_TOLERANCE 1e-5
#define CLIQUES_DEFAULT_ESTEP_ITERATIONS 200
#define CLIQUES_DEFAULT_ESTEP_TOLERANCE 1e-3
#define CLIQUES_DEFAULT_DAMPING 0.5
#define CLIQUES_DEFAULT_SMOOTHING 1.0
#define CLIQUES_DEFAULT_FIT_ITERATIONS 3000
#define CLIQUES_DEFAULT_FIT_TOLERANCE 1e-6
#define CLIQUES_DEFAULT_L2 0.5

/*
 * Ridge of fits whose targets agree with each other (MrfCliquesFitMarginals;
 * the CGM M-step, whose counts are marginals of one model, uses it divided
 * by n, see FitCgm): only there to keep the optimum finite.
 */
#define CLIQUES_TOKEN_L2 1e-4

/* Smallest NLBP damping the adaptive rule goes down to. */
#define CLIQUES_MIN_DAMPING 1e-4

/*
 * Accelerated EM stops as stalled when this many maps pass, each with an
 * E-step that hit its cap, without the change of the clique marginals
 * halving.  At large epsilon (b = 2m/epsilon well below 1) the E-step's
 * fixed point is stiff (its Jacobian is about n Cov / b^2), every E-step
 * hits its cap and the maps wander at a change of about 1e-3 instead of
 * converging: at epsilon 100 and n = 1e5 EM ran all 300 maps on every run,
 * 5e4 times naive MLE's time, for the same KL (the defaults study; docs/learners/cliques.md 'CGM-EM').
 * Slow but sound runs are not stopped: at epsilon 0.1 no E-step hits its
 * cap (a rule on the change alone cut an ER run short there).
 */
#define CLIQUES_STALL_MAPS 40

/* Log-likelihood (in units of one b) a CGM fit may lose per cell to naive MLE before it is replaced. */
#define CLIQUES_FALLBACK_SLACK 10.0

/* The problems MrfCliqueSetCheck and MrfCliqueSetCheckAlphabets return (problem.h). */
const char	MrfCliquesBadP[] = "the number of variables must be at least 1";
const char	MrfCliquesBadK[] = "every variable's alphabet size must be between 2 and 65536";
const char	MrfCliquesNoCliques[] = "at least one clique is required";
const char	MrfCliquesEmptyClique[] = "a clique has no variables";
const char	MrfCliquesOutOfRange[] = "a clique names a variable outside 1..p";
const char	MrfCliquesRepeatedVariable[] = "a clique names the same variable twice";
const char	MrfCliquesDuplicateClique[] = "the same clique is listed twice";
const char	MrfCliquesTableTooLarge[] =
"a clique's table (the product of its variables' alphabet sizes) exceeds the size limit";
const char	MrfCliquesTotalTooLarge[] = "the tables of all cliques together exceed the size limit";

/* Insertion sort: cliques are short. */
static void
SortInts(int *v, int n)
{
	int			i;

	for (i = 1; i < n; i++)
	{
		int			x = v[i];
		int			j = i - 1;

		while (j >= 0 && v[j] > x)
		{
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
}

/* Largest clique size accepted before its table size is even computed. */
#define CLIQUES_MAX_SIZE 62

/*
 * Per clique: non-empty, at most CLIQUES_MAX_SIZE variables, in range, no
 * repeats, table within the limit; then the total; then duplicates, by
 * comparing sorted copies pairwise (m^2, fine for the clique counts a table
 * of prod card[i] cells per clique allows in memory).  card NULL: every
 * variable has k values.
 */
static MrfProblem
CheckCliques(int p, int k, const int *card, int m, const int *start,
			 const int *var, int64_t max_cells, int *bad_clique)
{
	int64_t		total = 0;
	int			a[CLIQUES_MAX_SIZE];
	int			b[CLIQUES_MAX_SIZE];
	int			c;
	int			d;
	int			i;

	if (bad_clique != NULL)
		*bad_clique = -1;
	if (max_cells <= 0 || max_cells > MRF_CLIQUES_MAX_TABLE_CELLS)
		max_cells = MRF_CLIQUES_MAX_TABLE_CELLS;
	if (p < 1)
		return MrfCliquesBadP;
	if (card == NULL && (k < 2 || k > MRF_CODE_CARD_MAX))
		return MrfCliquesBadK;
	for (i = 0; card != NULL && i < p; i++)
		if (card[i] < 2 || card[i] > MRF_CODE_CARD_MAX)
			return MrfCliquesBadK;
	if (m < 1 || start == NULL || var == NULL)
		return MrfCliquesNoCliques;
	for (c = 0; c < m; c++)
	{
		int			size = start[c + 1] - start[c];
		int64_t		cells;

		if (bad_clique != NULL)
			*bad_clique = c;
		if (size <= 0)
			return MrfCliquesEmptyClique;
		if (size > CLIQUES_MAX_SIZE)
			return MrfCliquesTableTooLarge;
		for (i = 0; i < size; i++)
		{
			a[i] = var[start[c] + i];
			if (a[i] < 0 || a[i] >= p)
				return MrfCliquesOutOfRange;
		}
		SortInts(a, size);
		for (i = 1; i < size; i++)
			if (a[i] == a[i - 1])
				return MrfCliquesRepeatedVariable;
		cells = card != NULL ? MrfVarsCells(card, size, a, max_cells) :
			MrfTableCells(k, size, max_cells);
		if (cells < 0)
			return MrfCliquesTableTooLarge;
		total += cells;
		if (total > max_cells)
			return MrfCliquesTotalTooLarge;
	}
	for (c = 0; c < m; c++)
	{
		int			size = start[c + 1] - start[c];

		memcpy(a, var + start[c], sizeof(int) * (size_t) size);
		SortInts(a, size);
		for (d = c + 1; d < m; d++)
		{
			if (start[d + 1] - start[d] != size)
				continue;
			memcpy(b, var + start[d], sizeof(int) * (size_t) size);
			SortInts(b, size);
			if (memcmp(a, b, sizeof(int) * (size_t) size) == 0)
			{
				if (bad_clique != NULL)
					*bad_clique = d;
				return MrfCliquesDuplicateClique;
			}
		}
	}
	if (bad_clique != NULL)
		*bad_clique = -1;
	return NULL;
}

/* One alphabet: every variable takes k values. */
MrfProblem
MrfCliqueSetCheck(int p, int k, int m, const int *start, const int *var,
				  int64_t max_cells, int *bad_clique)
{
	return CheckCliques(p, k, NULL, m, start, var, max_cells, bad_clique);
}

/* Per-variable alphabets card[0..p-1]. */
MrfProblem
MrfCliqueSetCheckAlphabets(int p, const int *card, int m, const int *start,
						   const int *var, int64_t max_cells, int *bad_clique)
{
	if (card == NULL)
	{
		if (bad_clique != NULL)
			*bad_clique = -1;
		return MrfCliquesBadK;
	}
	return CheckCliques(p, 0, card, m, start, var, max_cells, bad_clique);
}

/*
 * One allocation for the struct and its four arrays.  card NULL: every
 * variable has k values.
 */
static MrfStatus
BuildSet(int p, int k, const int *card, int m, const int *start,
		 const int *var, int64_t max_cells, const MrfEnv *env,
		 MrfCliqueSet **out)
{
	MrfCliqueSet *set;
	size_t		nvar;
	size_t		bytes;
	char	   *mem;
	int			c;
	int			i;

	*out = NULL;
	if (CheckCliques(p, k, card, m, start, var, max_cells, NULL) != NULL)
		return MRF_EINVAL;
	nvar = (size_t) (start[m] - start[0]);
	bytes = sizeof(MrfCliqueSet) + sizeof(int64_t) * ((size_t) m + 1) +
		sizeof(int) * ((size_t) m + 1) + sizeof(int) * nvar +
		sizeof(int) * (size_t) p;
	mem = MrfAlloc(env, bytes);
	if (mem == NULL)
		return MRF_ENOMEM;
	set = (MrfCliqueSet *) mem;
	set->offset = (int64_t *) (mem + sizeof(MrfCliqueSet));
	set->start = (int *) (set->offset + m + 1);
	set->var = set->start + m + 1;
	set->card = set->var + nvar;
	set->p = p;
	set->k = 0;
	for (i = 0; i < p; i++)
	{
		set->card[i] = card != NULL ? card[i] : k;
		set->k = set->card[i] > set->k ? set->card[i] : set->k;
	}
	set->m = m;
	set->offset[0] = 0;
	for (c = 0; c < m; c++)
	{
		int			size = start[c + 1] - start[c];

		set->start[c] = start[c] - start[0];
		memcpy(set->var + set->start[c], var + start[c], sizeof(int) * (size_t) size);
		SortInts(set->var + set->start[c], size);
		set->offset[c + 1] = set->offset[c] +
			MrfVarsCells(set->card, size, set->var + set->start[c], INT64_MAX);
	}
	set->start[m] = (int) nvar;
	set->cells = set->offset[m];
	*out = set;
	return MRF_OK;
}

/* One alphabet: a thin wrapper over the per-variable form. */
MrfStatus
MrfCliqueSetBuild(int p, int k, int m, const int *start, const int *var,
				  int64_t max_cells, const MrfEnv *env, MrfCliqueSet **out)
{
	return BuildSet(p, k, NULL, m, start, var, max_cells, env, out);
}

/* Per-variable alphabets card[0..p-1] (copied into the set). */
MrfStatus
MrfCliqueSetBuildAlphabets(int p, const int *card, int m, const int *start,
						   const int *var, int64_t max_cells, const MrfEnv *env,
						   MrfCliqueSet **out)
{
	*out = NULL;
	if (card == NULL)
		return MRF_EINVAL;
	return BuildSet(p, 0, card, m, start, var, max_cells, env, out);
}

/* Whether every variable has the same alphabet (the single-k form). */
int
MrfCliqueSetUniform(const MrfCliqueSet *set)
{
	int			i;

	for (i = 0; i < set->p; i++)
		if (set->card[i] != set->k)
			return 0;
	return 1;
}

/* The set is one allocation. */
void
MrfCliqueSetFree(const MrfEnv *env, MrfCliqueSet *set)
{
	MrfFree(env, set);
}

/* Total cells of all tables. */
int64_t
MrfCliqueSetCells(const MrfCliqueSet *set)
{
	return set->cells;
}

/* Defaults chosen on the paper's synthetic study (see test_cliques.c). */
void
MrfCliquesDefaultOptions(MrfCliquesOptions *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->method = MRF_CLIQUES_CGM;
	opt->pseudocount = CLIQUES_DEFAULT_PSEUDOCOUNT;
	opt->em_iterations = CLIQUES_DEFAULT_EM_ITERATIONS;
	opt->em_tolerance = CLIQUES_DEFAULT_EM_TOLERANCE;
	opt->estep_iterations = CLIQUES_DEFAULT_ESTEP_ITERATIONS;
	opt->estep_tolerance = CLIQUES_DEFAULT_ESTEP_TOLERANCE;
	opt->damping = CLIQUES_DEFAULT_DAMPING;
	opt->smoothing = CLIQUES_DEFAULT_SMOOTHING;
	opt->fit_iterations = CLIQUES_DEFAULT_FIT_ITERATIONS;
	opt->fit_tolerance = CLIQUES_DEFAULT_FIT_TOLERANCE;
	opt->l2 = CLIQUES_DEFAULT_L2;
	opt->bp.mode = MRF_INFER_AUTO;
}

/* Options with out-of-range fields replaced by defaults. */
static MrfCliquesOptions
ResolveOptions(const MrfCliquesOptions *in)
{
	MrfCliquesOptions d;
	MrfCliquesOptions o = *in;

	MrfCliquesDefaultOptions(&d);
	if (!(o.pseudocount >= 0) || !isfinite(o.pseudocount))
		o.pseudocount = d.pseudocount;
	if (o.em_iterations <= 0)
		o.em_iterations = d.em_iterations;
	if (!(o.em_tolerance > 0))
		o.em_tolerance = d.em_tolerance;
	if (o.estep_iterations <= 0)
		o.estep_iterations = d.estep_iterations;
	if (!(o.estep_tolerance > 0))
		o.estep_tolerance = d.estep_tolerance;
	if (!(o.damping > 0) || o.damping > 1)
		o.damping = d.damping;
	if (!(o.smoothing > 0) || !isfinite(o.smoothing))
		o.smoothing = d.smoothing;
	if (o.fit_iterations <= 0)
		o.fit_iterations = d.fit_iterations;
	if (!(o.fit_tolerance > 0))
		o.fit_tolerance = d.fit_tolerance;
	if (!(o.l2 > 0) || !isfinite(o.l2))
		o.l2 = d.l2;
	return o;
}

/* One pass over the rows; the only function that reads them. */
MrfStatus
MrfCliquesCount(const MrfCode *rows, int64_t n, const MrfCliqueSet *set,
				int64_t *counts)
{
	int64_t		r;
	int			c;

	if (n < 0 || (n > 0 && rows == NULL))
		return MRF_EINVAL;
	memset(counts, 0, sizeof(int64_t) * (size_t) set->cells);
	for (r = 0; r < n; r++)
	{
		const MrfCode *z = rows + r * set->p;
		int			j;

		for (j = 0; j < set->p; j++)
			if (z[j] >= set->card[j])
				return MRF_EINVAL;
		for (c = 0; c < set->m; c++)
			counts[set->offset[c] + MrfCliqueIndex(set, c, z)]++;
	}
	return MRF_OK;
}

/*
 * The epsilon-DP step: exact discrete Laplace noise on every cell with the
 * scale from privacy.c.  Nothing else in this file sees true counts.
 */
MrfStatus
MrfCliquesRelease(const int64_t *counts, const MrfCliqueSet *set,
				  double epsilon, MrfRng *rng, int64_t *noisy,
				  MrfCliquesReport *rep)
{
	uint64_t	num;
	uint64_t	den;
	int64_t		x;

	if (MrfCliquesNoiseScale(epsilon, set->m, &num, &den) != 0)
		return MRF_EINVAL;
	for (x = 0; x < set->cells; x++)
	{
		int64_t		e = MrfRngDiscreteLaplace(rng, num, den);

		if (e == MRF_NOISE_INVALID)
			return MRF_EINVAL;
		/* counts <= n < 2^62 and |e| below 2^62 in practice; saturate anyway */
		if ((e > 0 && counts[x] > INT64_MAX - e) ||
			(e < 0 && counts[x] < INT64_MIN - e))
			return MRF_EINVAL;
		noisy[x] = counts[x] + e;
	}
	if (rep != NULL)
	{
		rep->sensitivity = MrfCliquesSensitivity(set->m);
		rep->noise_num = num;
		rep->noise_den = den;
		rep->noise_scale = (double) num / (double) den;
	}
	return MRF_OK;
}

/* Working state of a fit: the engine and the per-cell arrays. */
typedef struct FitState
{
	const MrfCliqueSet *set;
	const MrfEnv *env;
	MrfCliquesOptions opt;
	MrfBp	   *bp;
	int			decomposable;
	int		   *jt_parent;		/* junction tree of the cliques (decomposable) */
	int32_t    *sepmap;			/* clique cell -> separator cell, per clique */
	int64_t    *sepoff;			/* m + 1 offsets into sep */
	double	   *sep;			/* separator marginals of the closed form */
	double	   *marg;			/* cells: marginals */
	double	   *target;			/* cells: MLE targets */
	double	   *work1;			/* cells: scratch */
	double	   *work2;
	double	   *work3;
	double		ridge;			/* l2 of the current gradient fits */
	int			estep_capped;	/* E-steps that hit their cap (CLIQUES_STALL_MAPS) */
	MrfCliquesReport *rep;
} FitState;

/* Frees what FitStateInit allocated (safe on a partly built state). */
static void
FitStateFree(FitState *fs)
{
	MrfBpFree(fs->bp);
	MrfFree(fs->env, fs->jt_parent);
	MrfFree(fs->env, fs->sepmap);
	MrfFree(fs->env, fs->sepoff);
	MrfFree(fs->env, fs->sep);
	MrfFree(fs->env, fs->marg);
	MrfFree(fs->env, fs->target);
	MrfFree(fs->env, fs->work1);
	MrfFree(fs->env, fs->work2);
	MrfFree(fs->env, fs->work3);
	memset(fs, 0, sizeof(*fs));
}

/*
 * Builds the inference engine, detects a junction tree of the cliques and,
 * if there is one, the index maps of the closed form.
 */
static MrfStatus
FitStateInit(FitState *fs, const MrfCliqueSet *set, const MrfCliquesOptions *opt,
			 const MrfEnv *env, MrfCliquesReport *rep)
{
	size_t		cells = (size_t) set->cells;
	MrfBpInfo	info;
	MrfStatus	status;
	int			c;

	memset(fs, 0, sizeof(*fs));
	fs->set = set;
	fs->env = env;
	fs->opt = ResolveOptions(opt);
	fs->rep = rep;
	fs->marg = MrfAlloc(env, sizeof(double) * cells);
	fs->target = MrfAlloc(env, sizeof(double) * cells);
	fs->work1 = MrfAlloc(env, sizeof(double) * cells);
	fs->work2 = MrfAlloc(env, sizeof(double) * cells);
	fs->work3 = MrfAlloc(env, sizeof(double) * cells);
	fs->jt_parent = MrfAlloc(env, sizeof(int) * (size_t) set->m);
	fs->sepoff = MrfAlloc(env, sizeof(int64_t) * ((size_t) set->m + 1));
	fs->sepmap = MrfAlloc(env, sizeof(int32_t) * cells);
	if (fs->marg == NULL || fs->target == NULL || fs->work1 == NULL ||
		fs->work2 == NULL || fs->work3 == NULL || fs->jt_parent == NULL ||
		fs->sepoff == NULL || fs->sepmap == NULL)
	{
		FitStateFree(fs);
		return MRF_ENOMEM;
	}
	status = MrfBpBuild(set, &fs->opt.bp, env, &fs->bp);
	if (status == MRF_OK)
		status = MrfCliquesJunctionTree(set, env, &fs->decomposable,
										fs->jt_parent, NULL);
	if (status != MRF_OK)
	{
		FitStateFree(fs);
		return status;
	}
	MrfBpGetInfo(fs->bp, &info);
	if (rep != NULL)
	{
		rep->exact = info.exact;
		rep->decomposable = fs->decomposable;
	}
	if (!fs->decomposable)
		return MRF_OK;

	/* separator of each clique with its parent in the clique junction tree */
	fs->sepoff[0] = 0;
	for (c = 0; c < set->m; c++)
	{
		int			pc = fs->jt_parent[c];
		int64_t		cs = 1;
		int			i;
		int			j;

		if (pc >= 0)
			for (i = set->start[c]; i < set->start[c + 1]; i++)
				for (j = set->start[pc]; j < set->start[pc + 1]; j++)
					if (set->var[i] == set->var[j])
						cs *= set->card[set->var[i]];
		fs->sepoff[c + 1] = fs->sepoff[c] + cs;
	}
	fs->sep = MrfAlloc(env, sizeof(double) * (size_t) fs->sepoff[set->m]);
	if (fs->sep == NULL)
	{
		FitStateFree(fs);
		return MRF_ENOMEM;
	}
	for (c = 0; c < set->m; c++)
	{
		int			pc = fs->jt_parent[c];
		int			sv[CLIQUES_MAX_SIZE];
		int			ns = 0;
		int			i;
		int			j;

		if (pc >= 0)
			for (i = set->start[c]; i < set->start[c + 1]; i++)
				for (j = set->start[pc]; j < set->start[pc + 1]; j++)
					if (set->var[i] == set->var[j])
						sv[ns++] = set->var[i];
		MrfSubsetIndexMap(set->card, set->start[c + 1] - set->start[c],
						  set->var + set->start[c], ns, sv,
						  fs->sepmap + set->offset[c]);
	}
	return MRF_OK;
}

/* Marginals through the engine, counting loopy sweeps for the report. */
static MrfStatus
Infer(FitState *fs, const double *logpot, double *marg, double *logz)
{
	MrfStatus	status = MrfBpMarginals(fs->bp, logpot, marg, logz);

	if (status == MRF_OK && fs->rep != NULL)
	{
		MrfBpInfo	info;

		MrfBpGetInfo(fs->bp, &info);
		if (!info.exact)
			fs->rep->bp_sweeps += info.last_iterations;
	}
	return status;
}

/*
 * Closed form on the clique junction tree: psi_C = log tau_C - log tau_C(S)
 * with tau_C(S) the child's own marginal on the separator (root: S empty,
 * so psi = log tau_C, and the model is normalised: log Z = 0).
 */
static void
ClosedForm(FitState *fs, const double *tau, double *logpot)
{
	const MrfCliqueSet *set = fs->set;
	int			c;

	for (c = 0; c < set->m; c++)
	{
		const double *t = tau + set->offset[c];
		const int32_t *map = fs->sepmap + set->offset[c];
		double	   *s = fs->sep + fs->sepoff[c];
		int64_t		n = set->offset[c + 1] - set->offset[c];
		int64_t		ns = fs->sepoff[c + 1] - fs->sepoff[c];
		int64_t		x;

		memset(s, 0, sizeof(double) * (size_t) ns);
		for (x = 0; x < n; x++)
			s[map[x]] += t[x];
		for (x = 0; x < n; x++)
			logpot[set->offset[c] + x] = log(t[x]) - log(s[map[x]]);
	}
}

/*
 * Regularised MLE by accelerated gradient ascent (FISTA with gradient
 * restarts, O'Donoghue and Candes 2015) on
 *   F(psi) = sum_C <tau_C, psi_C> - log Z(psi) - (l2 / 2) ||psi||^2,
 * whose gradient is tau - marginals(psi) - l2 psi.  The Hessian of log Z is
 * the covariance of the m stacked one-hot clique indicators, whose largest
 * eigenvalue is at most m (Var(sum of m terms) <= m sum of variances, each
 * at most the squared norm), so step 1/(m + l2) never overshoots.  logpot
 * holds the starting point on entry.
 */
static MrfStatus
GradientFit(FitState *fs, const double *tau, double *logpot)
{
	const MrfCliqueSet *set = fs->set;
	int64_t		cells = set->cells;
	double		l2 = fs->ridge;
	double		step = 1.0 / ((double) set->m + l2);
	double	   *y = fs->work1;
	double	   *prev = fs->work2;
	double		t = 1.0;
	int			it;
	int64_t		x;

	memcpy(y, logpot, sizeof(double) * (size_t) cells);
	for (it = 0; it < fs->opt.fit_iterations; it++)
	{
		double		gmax = 0.0;
		double		dot = 0.0;
		double		tn;
		MrfStatus	status;

		status = Infer(fs, y, fs->marg, NULL);
		if (status != MRF_OK)
			return status;
		memcpy(prev, logpot, sizeof(double) * (size_t) cells);
		for (x = 0; x < cells; x++)
		{
			double		g = tau[x] - fs->marg[x] - l2 * y[x];

			gmax = fabs(g) > gmax ? fabs(g) : gmax;
			logpot[x] = y[x] + step * g;
			dot += g * (logpot[x] - prev[x]);
		}
		if (gmax < fs->opt.fit_tolerance)
		{
			it++;
			break;
		}
		/* momentum that points downhill is dropped */
		if (dot < 0.0)
			t = 1.0;
		tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
		for (x = 0; x < cells; x++)
			y[x] = logpot[x] + ((t - 1.0) / tn) * (logpot[x] - prev[x]);
		t = tn;
		if ((it & 63) == 63)
			MrfPoll(fs->env, it, fs->opt.fit_iterations);
	}
	if (fs->rep != NULL)
	{
		fs->rep->fit_steps += it;
		if (it >= fs->opt.fit_iterations)
			fs->rep->fit_capped++;
	}
	return MRF_OK;
}

/* MLE of targets tau: closed form when possible, else gradient ascent. */
static MrfStatus
FitTargets(FitState *fs, const double *tau, double *logpot, int *converged)
{
	int			capped;
	MrfStatus	status;

	if (fs->decomposable)
	{
		ClosedForm(fs, tau, logpot);
		*converged = 1;
		return MRF_OK;
	}
	capped = fs->rep != NULL ? fs->rep->fit_capped : 0;
	status = GradientFit(fs, tau, logpot);
	*converged = fs->rep == NULL || fs->rep->fit_capped == capped;
	return status;
}

/*
 * Naive targets: each noisy table over n projected onto the simplex, then
 * (n mu + alpha) / (n + alpha K) so that no target is 0.
 */
static MrfStatus
NaiveTargets(FitState *fs, const int64_t *noisy, int64_t n, double *tau)
{
	const MrfCliqueSet *set = fs->set;
	double		alpha = fs->opt.pseudocount;
	double		nn = n > 0 ? (double) n : 1.0;
	int			c;

	for (c = 0; c < set->m; c++)
	{
		int64_t		off = set->offset[c];
		int64_t		len = set->offset[c + 1] - off;
		int64_t		x;
		MrfStatus	status;

		for (x = 0; x < len; x++)
			tau[off + x] = (double) noisy[off + x] / nn;
		status = MrfSimplexProject(tau + off, len, tau + off, fs->env);
		if (status != MRF_OK)
			return status;
		for (x = 0; x < len; x++)
			tau[off + x] = (nn * tau[off + x] + alpha) / (nn + alpha * (double) len);
	}
	return MRF_OK;
}

/* Zero log-potentials: the uniform model, the start of an iterative fit. */
static void
Uniform(const MrfCliqueSet *set, double *logpot)
{
	memset(logpot, 0, sizeof(double) * (size_t) set->cells);
}

/*
 * NLBP E-step: the fixed point of theta' = theta + grad_n log p(y | n), n =
 * n_rows BP(theta'), by damped iteration.  theta' (in: the start) is
 * updated in place; fs->marg holds BP(theta') on return.  The residual
 * max |theta + grad - theta'| is measured in units of 1/b, the largest
 * gradient, so the tolerance means the same at every epsilon.
 */
static MrfStatus
EStep(FitState *fs, const double *theta, const int64_t *noisy, int64_t n,
	  double b, double *thetap)
{
	const MrfCliqueSet *set = fs->set;
	int64_t		cells = set->cells;
	double		nn = (double) n;
	double		delta = fs->opt.smoothing * b;
	double		g = fs->opt.damping;
	double		prev = INFINITY;
	double		resid = INFINITY;
	int			it;
	int64_t		x;

	for (it = 0; it < fs->opt.estep_iterations; it++)
	{
		MrfStatus	status = Infer(fs, thetap, fs->marg, NULL);

		if (status != MRF_OK)
			return status;
		resid = 0.0;
		for (x = 0; x < cells; x++)
		{
			double		r = (double) noisy[x] - nn * fs->marg[x];
			double		h = sqrt(r * r + delta * delta);
			double		grad = r / (b * h);
			double		d = theta[x] + grad - thetap[x];

			resid = fabs(d) > resid ? fabs(d) : resid;
			fs->work3[x] = d;
		}
		resid *= b;
		if (resid < fs->opt.estep_tolerance)
			break;
		/* the map is stiff when n b^2 is large: back off when it overshoots */
		if (resid > prev)
			g = g * 0.5 > CLIQUES_MIN_DAMPING ? g * 0.5 : CLIQUES_MIN_DAMPING;
		else
			g = g * 1.1 < fs->opt.damping ? g * 1.1 : fs->opt.damping;
		prev = resid;
		for (x = 0; x < cells; x++)
			thetap[x] += g * fs->work3[x];
	}
	if (it >= fs->opt.estep_iterations)
		fs->estep_capped++;
	if (fs->rep != NULL)
	{
		fs->rep->estep_sweeps += it < fs->opt.estep_iterations ? it + 1 : it;
		if (it >= fs->opt.estep_iterations)
		{
			fs->rep->estep_capped++;
			/* marginals of the last theta' for the M-step */
			return Infer(fs, thetap, fs->marg, NULL);
		}
		fs->rep->estep_residual = resid;
	}
	else if (it >= fs->opt.estep_iterations)
		return Infer(fs, thetap, fs->marg, NULL);
	return MRF_OK;
}

/*
 * Naive MLE from the noisy tables.  The ridge of a loopy model's fit scales
 * with the noise in a marginal, b/n: that is the size of the disagreement
 * between projected tables which makes the unregularised MLE diverge, and it
 * vanishes as epsilon or n grows, so naive MLE tends to the non-private MLE.
 */
static MrfStatus
FitNaive(FitState *fs, const int64_t *noisy, int64_t n, double b,
		 double *logpot)
{
	int			converged;
	MrfStatus	status;

	fs->ridge = fs->opt.l2 * b / (double) (n > 0 ? n : 1);
	if (fs->ridge < CLIQUES_TOKEN_L2)
		fs->ridge = CLIQUES_TOKEN_L2;

	status = NaiveTargets(fs, noisy, n, fs->target);
	if (status != MRF_OK)
		return status;
	Uniform(fs->set, logpot);
	status = FitTargets(fs, fs->target, logpot, &converged);
	if (fs->rep != NULL)
		fs->rep->converged = converged;
	return status;
}

/*
 * One EM map F: out = M(E(in)): the NLBP E-step from in (theta' in thetap),
 * then the MLE of the inferred counts n BP(theta') with the pseudo-count,
 * warm-started at theta', which already has these marginals up to alpha.
 * fs->marg holds the marginals of out on return.
 */
static MrfStatus
EmStep(FitState *fs, const int64_t *noisy, int64_t n, double b,
	   const double *in, double *out, double *thetap)
{
	const MrfCliqueSet *set = fs->set;
	int64_t		cells = set->cells;
	double		alpha = fs->opt.pseudocount;
	double		nn = (double) n;
	int			converged;
	int			c;
	MrfStatus	status;

	memcpy(thetap, in, sizeof(double) * (size_t) cells);
	status = EStep(fs, in, noisy, n, b, thetap);
	if (status != MRF_OK)
		return status;
	for (c = 0; c < set->m; c++)
	{
		int64_t		off = set->offset[c];
		int64_t		len = set->offset[c + 1] - off;
		int64_t		x;

		for (x = 0; x < len; x++)
			fs->target[off + x] = (nn * fs->marg[off + x] + alpha) /
				(nn + alpha * (double) len);
	}
	memcpy(out, thetap, sizeof(double) * (size_t) cells);
	status = FitTargets(fs, fs->target, out, &converged);
	if (status != MRF_OK)
		return status;
	return Infer(fs, out, fs->marg, NULL);
}

/* max |a - b| over the cells. */
static double
MaxDiff(const double *a, const double *b, int64_t cells)
{
	double		d = 0.0;
	int64_t		x;

	for (x = 0; x < cells; x++)
		d = fabs(a[x] - b[x]) > d ? fabs(a[x] - b[x]) : d;
	return d;
}

/*
 * CGM-EM (the paper's Algorithm 2) from the naive MLE: E-step by NLBP,
 * M-step by MLE of the inferred counts with the same pseudo-count, until no
 * clique marginal moves by more than em_tolerance in one EM map or the cap
 * on maps.
 *
 * Acceleration (unless em_plain): SQUAREM (Varadhan and Roland,
 * Scand. J. Stat. 2008, scheme S3).  Plain EM converges linearly and slowly
 * when the noise is large: the likelihood gradient is at most 1/b per cell,
 * so one map moves a log-potential by about 1/b (b = 2m/epsilon, 160 for
 * eight cliques at epsilon 0.1) and EM hit its cap of 100 maps on every run
 * at epsilon 0.1.  From theta0, theta1 = F(theta0), theta2 = F(theta1),
 * r = theta1 - theta0, v = theta2 - 2 theta1 + theta0 and
 * a = -|r|/|v| clamped to [-step_max, -1], the extrapolation
 * x = theta0 - 2 a r + a^2 v (a = -1 is theta2, plain EM) is followed by
 * one more map F, whose result is accepted when its residual, the largest
 * change of a clique marginal from x to F(x), is no larger than plain EM's
 * from theta1 to theta2; otherwise theta2 is kept and step_max shrinks to
 * a quarter of the rejected length.  (The residual in log-potentials
 * rejected most steps on loopy graphs, where the potentials have directions
 * the marginals do not see and the inner fits are inexact.)  The cap counts
 * maps F, as plain EM's did.  step_max starts at 1 and grows 4-fold
 * whenever the S3 length reaches it.  Everything here reads only the noisy
 * tables: post-processing.
 */
static MrfStatus
FitCgm(FitState *fs, const int64_t *noisy, int64_t n, double b, double *logpot)
{
	const MrfCliqueSet *set = fs->set;
	int64_t		cells = set->cells;
	double		nn = (double) n;
	double	   *thetap = NULL;
	double	   *old = NULL;
	double	   *t1 = NULL;
	double	   *t2 = NULL;
	double	   *t3 = NULL;
	double	   *t4 = NULL;
	double	   *m3 = NULL;
	double	   *kept = NULL;	/* theta0 of the smallest change (CLIQUES_STALL_MAPS) */
	double		kept_change = INFINITY;
	double		change = INFINITY;
	double		step_max = 1.0;
	double		best = INFINITY;	/* the change last halved to this */
	int			best_map = 0;	/* at this map */
	int			best_capped = fs->estep_capped; /* with this many capped E-steps */
	int			maps = 0;
	int			cap = fs->opt.em_iterations;
	MrfStatus	status;

	if (n < 1)
		return FitNaive(fs, noisy, n, b, logpot);
	thetap = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	old = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	t1 = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	t2 = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	t3 = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	t4 = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	m3 = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	kept = MrfAlloc(fs->env, sizeof(double) * (size_t) cells);
	if (thetap == NULL || old == NULL || t1 == NULL || t2 == NULL || t3 == NULL ||
		t4 == NULL || m3 == NULL || kept == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	status = FitNaive(fs, noisy, n, b, logpot);
	if (status != MRF_OK)
		goto done;
	/*
	 * The M-step's ridge must vanish with n.  Each M-step shrinks theta by
	 * about Cov^-1 l2 theta, which is large along rare cells, while the
	 * E-step can move theta back by at most 1/b per cell; a fixed ridge (it
	 * was 1e-4) thus settles EM at a shrunken model, and on loopy graphs CGM
	 * lost to naive MLE at n = 1e5 (KL 0.020 against 0.008 at epsilon 0.1).
	 * The targets are marginals of one model, so a vanishing ridge suffices.
	 */
	fs->ridge = CLIQUES_TOKEN_L2 / nn;
	status = Infer(fs, logpot, old, NULL);
	if (status != MRF_OK)
		goto done;
	memcpy(kept, logpot, sizeof(double) * (size_t) cells);

	/* logpot is theta0 and old its marginals at the top of every round */
	while (maps < cap)
	{
		double		res;
		int			finite;
		double		nr = 0.0;
		double		nv = 0.0;
		double		a;
		int64_t		x;

		/* change: the last map's, the one that gave theta0 (on every path) */
		if (change < kept_change)
		{
			kept_change = change;
			memcpy(kept, logpot, sizeof(double) * (size_t) cells);
		}
		if (change <= 0.5 * best)
		{
			best = change;
			best_map = maps;
			best_capped = fs->estep_capped;
		}
		/* stalled (CLIQUES_STALL_MAPS): the theta0 that moved least, the maps no longer converge */
		if (!fs->opt.em_plain && maps - best_map >= CLIQUES_STALL_MAPS &&
			fs->estep_capped - best_capped >= maps - best_map)
		{
			memcpy(logpot, kept, sizeof(double) * (size_t) cells);
			change = kept_change;
			break;
		}

		status = EmStep(fs, noisy, n, b, logpot, t1, thetap);
		if (status != MRF_OK)
			goto done;
		maps++;
		MrfPoll(fs->env, maps, cap);
		change = MaxDiff(fs->marg, old, cells);
		memcpy(old, fs->marg, sizeof(double) * (size_t) cells);
		if (change < fs->opt.em_tolerance || maps >= cap || fs->opt.em_plain)
		{
			memcpy(logpot, t1, sizeof(double) * (size_t) cells);
			if (change < fs->opt.em_tolerance)
				break;
			continue;
		}

		status = EmStep(fs, noisy, n, b, t1, t2, thetap);
		if (status != MRF_OK)
			goto done;
		maps++;
		MrfPoll(fs->env, maps, cap);
		change = MaxDiff(fs->marg, old, cells);
		memcpy(old, fs->marg, sizeof(double) * (size_t) cells);
		if (change < fs->opt.em_tolerance || maps >= cap)
		{
			memcpy(logpot, t2, sizeof(double) * (size_t) cells);
			break;
		}

		/* the S3 step length from r = theta1 - theta0, v = theta2 - 2 theta1 + theta0 */
		for (x = 0; x < cells; x++)
		{
			double		r = t1[x] - logpot[x];
			double		v = t2[x] - 2.0 * t1[x] + logpot[x];

			nr += r * r;
			nv += v * v;
		}
		a = nv > 0.0 ? -sqrt(nr / nv) : -step_max;
		a = a > -1.0 ? -1.0 : a;
		if (a <= -step_max)
		{
			/* the step wants more than allowed: allow more next time */
			a = -step_max;
			step_max *= 4.0;
		}
		if (!(a < -1.0))
		{
			memcpy(logpot, t2, sizeof(double) * (size_t) cells);
			continue;
		}
		finite = 1;
		for (x = 0; x < cells; x++)
		{
			double		r = t1[x] - logpot[x];
			double		v = t2[x] - 2.0 * t1[x] + logpot[x];

			t3[x] = logpot[x] - 2.0 * a * r + a * a * v;
			finite &= isfinite(t3[x]);
		}
		/* F at the extrapolation, and the marginal residuals to compare */
		res = INFINITY;
		if (finite)
		{
			status = Infer(fs, t3, m3, NULL);
			if (status == MRF_OK)
				status = EmStep(fs, noisy, n, b, t3, t4, thetap);
			if (status != MRF_OK)
				goto done;
			maps++;
			MrfPoll(fs->env, maps, cap);
			res = MaxDiff(fs->marg, m3, cells);
		}
		if (res <= change)
		{
			/* accepted: theta0 <- F(extrapolation) */
			change = MaxDiff(fs->marg, old, cells);
			memcpy(old, fs->marg, sizeof(double) * (size_t) cells);
			memcpy(logpot, t4, sizeof(double) * (size_t) cells);
		}
		else
		{
			/* rejected (or not finite): plain EM's theta2, whose marginals are in old */
			memcpy(logpot, t2, sizeof(double) * (size_t) cells);
			step_max = -a / 4.0 > 1.0 ? -a / 4.0 : 1.0;
		}
	}
	if (fs->rep != NULL)
	{
		fs->rep->em_iterations = maps;
		fs->rep->em_change = change;
		fs->rep->converged = change < fs->opt.em_tolerance;
	}

	/*
	 * A fit whose E-steps hit their cap can be stuck where it started.  At
	 * very large epsilon (b far below one count) the map is so stiff that
	 * the E-step never moves and EM "converges" in a few maps to whatever
	 * its start was: a third of each value in the data came out as
	 * 0.46/0.27/0.27 at epsilon 1e4 and 0.9999 on one value at 1e8, with
	 * converged true.  Such a fit explains the noisy tables far worse than
	 * the naive MLE: compare the Laplace log-likelihood of the noisy tables
	 * at each fit's expected counts, sum |y - n mu| / b, and release the
	 * naive MLE (reported as the fallback) when CGM's is worse by more than
	 * CLIQUES_FALLBACK_SLACK per cell.  A working CGM fit moves away from
	 * the noisy counts by a few b at most (the E-step's gradient is at most
	 * 1/b a cell), so this never replaces one; both are post-processing of
	 * the same noisy tables.
	 */
	if (status == MRF_OK && fs->estep_capped > 0)
	{
		double		cgm_loss = 0.0;
		double		naive_loss = 0.0;
		int			cgm_converged = fs->rep != NULL ? fs->rep->converged : 0;
		int64_t		x;

		status = Infer(fs, logpot, fs->marg, NULL);
		for (x = 0; status == MRF_OK && x < cells; x++)
			cgm_loss += fabs((double) noisy[x] - nn * fs->marg[x]) / b;
		if (status == MRF_OK)
			status = FitNaive(fs, noisy, n, b, t1);
		if (status == MRF_OK)
			status = Infer(fs, t1, fs->marg, NULL);
		for (x = 0; status == MRF_OK && x < cells; x++)
			naive_loss += fabs((double) noisy[x] - nn * fs->marg[x]) / b;
		if (status == MRF_OK && cgm_loss > naive_loss + CLIQUES_FALLBACK_SLACK * (double) cells)
		{
			memcpy(logpot, t1, sizeof(double) * (size_t) cells);
			if (fs->rep != NULL)
				fs->rep->naive_fallback = 1;
		}
		if (fs->rep != NULL)
			fs->rep->converged = fs->rep->naive_fallback ? 0 : cgm_converged;
	}

done:
	MrfFree(fs->env, thetap);
	MrfFree(fs->env, old);
	MrfFree(fs->env, t1);
	MrfFree(fs->env, t2);
	MrfFree(fs->env, t3);
	MrfFree(fs->env, t4);
	MrfFree(fs->env, m3);
	MrfFree(fs->env, kept);
	return status;
}

/* Dispatches on the method; the noise scale comes from privacy.c. */
MrfStatus
MrfCliquesFit(const int64_t *noisy, int64_t n, const MrfCliqueSet *set,
			  const MrfCliquesOptions *opt, const MrfEnv *env, double *logpot,
			  MrfCliquesReport *rep)
{
	FitState	fs;
	MrfCliquesReport local;
	uint64_t	num;
	uint64_t	den;
	MrfStatus	status;

	if (rep == NULL)
		rep = &local;
	memset(rep, 0, sizeof(*rep));
	if (n < 0 || MrfCliquesNoiseScale(opt->epsilon, set->m, &num, &den) != 0)
		return MRF_EINVAL;
	rep->method = opt->method;
	rep->sensitivity = MrfCliquesSensitivity(set->m);
	rep->noise_num = num;
	rep->noise_den = den;
	rep->noise_scale = (double) num / (double) den;
	status = FitStateInit(&fs, set, opt, env, rep);
	if (status != MRF_OK)
		return status;
	if (opt->method == MRF_CLIQUES_NAIVE)
		status = FitNaive(&fs, noisy, n, rep->noise_scale, logpot);
	else if (opt->method == MRF_CLIQUES_CGM)
		status = FitCgm(&fs, noisy, n, rep->noise_scale, logpot);
	else
		status = MRF_EINVAL;
	FitStateFree(&fs);
	return status;
}

/* Non-private MLE of given marginals, with the options' pseudo-count off. */
MrfStatus
MrfCliquesFitMarginals(const double *marg, const MrfCliqueSet *set,
					   const MrfCliquesOptions *opt, const MrfEnv *env,
					   double *logpot, MrfCliquesReport *rep)
{
	FitState	fs;
	MrfCliquesReport local;
	int			converged;
	int64_t		x;
	MrfStatus	status;

	if (rep == NULL)
		rep = &local;
	memset(rep, 0, sizeof(*rep));
	for (x = 0; x < set->cells; x++)
		if (!(marg[x] > 0.0) || !isfinite(marg[x]))
			return MRF_EINVAL;	/* a zero marginal has no finite MLE */
	status = FitStateInit(&fs, set, opt, env, rep);
	if (status != MRF_OK)
		return status;
	fs.ridge = CLIQUES_TOKEN_L2;
	Uniform(set, logpot);
	status = FitTargets(&fs, marg, logpot, &converged);
	rep->converged = converged;
	FitStateFree(&fs);
	return status;
}

/* The whole learner: count, release, fit; the counts are wiped after use. */
MrfStatus
MrfCliquesLearn(const MrfCode *rows, int64_t n, const MrfCliqueSet *set,
				const MrfCliquesOptions *opt, MrfRng *rng, const MrfEnv *env,
				double *logpot, int64_t *noisy, MrfCliquesReport *rep)
{
	int64_t    *counts;
	int64_t    *y = noisy;
	MrfStatus	status;

	counts = MrfAlloc(env, sizeof(int64_t) * (size_t) set->cells);
	if (y == NULL)
		y = MrfAlloc(env, sizeof(int64_t) * (size_t) set->cells);
	if (counts == NULL || y == NULL)
	{
		MrfFree(env, counts);
		if (noisy == NULL)
			MrfFree(env, y);
		return MRF_ENOMEM;
	}
	status = MrfCliquesCount(rows, n, set, counts);
	if (status == MRF_OK)
		status = MrfCliquesRelease(counts, set, opt->epsilon, rng, y, NULL);
	/* true counts must not outlive the release */
	memset(counts, 0, sizeof(int64_t) * (size_t) set->cells);
	MrfFree(env, counts);
	if (status == MRF_OK)
		status = MrfCliquesFit(y, n, set, opt, env, logpot, rep);
	if (noisy == NULL)
		MrfFree(env, y);
	return status;
}

/* Estimate: the engine as built plus the fit's per-cell arrays. */
MrfStatus
MrfCliquesWorkspaceBytes(const MrfCliqueSet *set, const MrfCliquesOptions *opt,
						 const MrfEnv *env, size_t *bytes)
{
	MrfCliquesOptions o = ResolveOptions(opt);
	MrfBp	   *bp;
	MrfBpInfo	info;
	MrfStatus	status;

	status = MrfBpBuild(set, &o.bp, env, &bp);
	if (status != MRF_OK)
		return status;
	MrfBpGetInfo(bp, &info);
	MrfBpFree(bp);
	/* counts, noisy, the fit's 11 double arrays, index and separator maps */
	*bytes = info.bytes + (size_t) set->cells * (2 * sizeof(int64_t) + 14 * sizeof(double) +
												 sizeof(int32_t)) +
		(size_t) set->m * 64;
	return MRF_OK;
}

/* Marginals of a model through a throw-away engine. */
MrfStatus
MrfCliquesMarginals(const MrfCliqueSet *set, const double *logpot,
					const MrfBpOptions *bpopt, const MrfEnv *env, double *marg,
					double *logz)
{
	MrfBpOptions o;
	MrfBp	   *bp;
	MrfStatus	status;

	memset(&o, 0, sizeof(o));
	if (bpopt != NULL)
		o = *bpopt;
	status = MrfBpBuild(set, &o, env, &bp);
	if (status != MRF_OK)
		return status;
	status = MrfBpMarginals(bp, logpot, marg, logz);
	MrfBpFree(bp);
	return status;
}

/* Unnormalised log-probability of one state. */
double
MrfCliquesScore(const MrfCliqueSet *set, const double *logpot, const MrfCode *z)
{
	double		s = 0.0;
	int			c;

	for (c = 0; c < set->m; c++)
		s += logpot[set->offset[c] + MrfCliqueIndex(set, c, z)];
	return s;
}

/* Advances z (p digits base k, last fastest) to the next state. */
void
MrfCliquesNextState(MrfCode *z, int p, int k)
{
	int			j;

	for (j = p - 1; j >= 0; j--)
	{
		if (++z[j] < k)
			return;
		z[j] = 0;
	}
}

/* Advances z (digit j base card[j], the last fastest) to the next state. */
void
MrfCliquesNextStateAlphabets(MrfCode *z, int p, const int *card)
{
	int			j;

	for (j = p - 1; j >= 0; j--)
	{
		if (++z[j] < card[j])
			return;
		z[j] = 0;
	}
}

/* prod card[i] over all p variables, or -1 above limit. */
int64_t
MrfCliqueSetStates(const MrfCliqueSet *set, int64_t limit)
{
	int64_t		states = 1;
	int			i;

	for (i = 0; i < set->p; i++)
	{
		if (states > limit / set->card[i])
			return -1;
		states *= set->card[i];
	}
	return states;
}

/*
 * KL(a || b) = sum_z P_a(z) (s_a(z) - s_b(z)) - log Z_a + log Z_b, with both
 * scores stored so that the log partition functions come from the same pass.
 */
MrfStatus
MrfCliquesKl(const MrfCliqueSet *a, const double *logpot_a,
			 const MrfCliqueSet *b, const double *logpot_b,
			 const MrfEnv *env, double *kl)
{
	int64_t		states;
	double	   *sa;
	double	   *sb;
	MrfCode		z[256];
	double		ma = -INFINITY;
	double		mb = -INFINITY;
	double		za = 0.0;
	double		zb = 0.0;
	double		acc = 0.0;
	int64_t		s;

	if (a->p != b->p || a->p > 256 ||
		memcmp(a->card, b->card, sizeof(int) * (size_t) a->p) != 0)
		return MRF_EINVAL;
	states = MrfCliqueSetStates(a, MRF_CLIQUES_MAX_ENUM_STATES);
	if (states < 0)
		return MRF_EINVAL;
	sa = MrfAlloc(env, sizeof(double) * (size_t) states);
	sb = MrfAlloc(env, sizeof(double) * (size_t) states);
	if (sa == NULL || sb == NULL)
	{
		MrfFree(env, sa);
		MrfFree(env, sb);
		return MRF_ENOMEM;
	}
	memset(z, 0, sizeof(z));
	for (s = 0; s < states; s++)
	{
		sa[s] = MrfCliquesScore(a, logpot_a, z);
		sb[s] = MrfCliquesScore(b, logpot_b, z);
		ma = sa[s] > ma ? sa[s] : ma;
		mb = sb[s] > mb ? sb[s] : mb;
		MrfCliquesNextStateAlphabets(z, a->p, a->card);
	}
	for (s = 0; s < states; s++)
	{
		za += exp(sa[s] - ma);
		zb += exp(sb[s] - mb);
	}
	for (s = 0; s < states; s++)
		acc += exp(sa[s] - ma) * (sa[s] - sb[s]);
	*kl = acc / za - (ma + log(za)) + (mb + log(zb));
	if (*kl < 0.0)
		*kl = 0.0;				/* rounding when the models coincide */
	MrfFree(env, sa);
	MrfFree(env, sb);
	return MRF_OK;
}
