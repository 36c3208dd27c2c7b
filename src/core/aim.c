/*
 * aim.c - AIM (aim.h; privacy.md 13): candidates, the adaptive loop, the
 * model-size filter, annealing and estimation.  Every noise scale and rate
 * comes from privacy.c (MrfAim*); everything else reads the rows only
 * through the measurements' outputs, except the exact candidate tables,
 * which only the selection (its quality) and the measurements read.
 */
#include <math.h>
#include <string.h>

#include "aim.h"
#include "cliques.h"
#include "fw.h"
#include "mst.h"
#include "privacy.h"
#include "workers.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/*
 * Under [MMSM22]'s schedule the one-ways get 0.9 rho / T each (T = 16 p
 * rounds and more), so 3 sigma, the rare-value compression's threshold,
 * can be a large share of a small table (160 of HouseVotes84's 435 rows at
 * rho 0.1): merging there erases real values of small alphabets (a
 * yes/no/missing column's rarer two) to save few cells.  Variables of at
 * most this many values are never merged under that schedule; the
 * MST-seeded schedule measures its one-ways as MST does and merges as MST
 * does.  A public constant: the rule stays post-processing.  Chosen by the
 * study in docs/learners/aim.md ("Small alphabets keep their values").
 */
#define AIM_PAPER_SPARED_ALPHABET 16

#define MAXV MRF_AIM_MAX_MARGINAL_VARS

/* sqrt(2 / pi) sigma: the expected |N(0, sigma^2)| of a cell ([MMSM22] Alg. 2). */
#define EXPECTED_ABS_NOISE(sigma) (sqrt(2.0 / M_PI) * (sigma))

/* A variable set, sorted. */
typedef struct VarSet
{
	int			size;
	int			vars[MAXV];
} VarSet;

/* A candidate marginal and its exact table. */
typedef struct Cand
{
	VarSet		s;
	int64_t		cells;
	int64_t    *x;				/* exact counts (cells), NULL when not kept */
	int			workload;		/* a marginal of the workload itself */
	/*
	 * The model's junction tree with this candidate added, for the model
	 * of structure version fitver (0: not known): whether the cliques with
	 * it are a junction tree, their cells, and the cells of the min-fill
	 * triangulation (-1 above max_model_cells).
	 */
	int			fitver;
	int			fitdec;
	int64_t		fitcells;
	int64_t		fittri;
	/*
	 * The same of the candidate's part alone (FitsByComponents): the model's
	 * components its variables are in, with it added, as of structure
	 * version kver (0: not known); valid while none of those components
	 * changed.
	 */
	int			kver;
	int			kdec;
	int64_t		kcells;
	int64_t		ktri;
} Cand;

/*
 * A measurement: y = x + N_Z(0, sigma2) over s; precision (NULL: 1 /
 * sigma2 for every cell) per cell for a one-way table whose rare values
 * were merged (a merged cell sums several noisy cells).
 */
typedef struct Meas
{
	VarSet		s;
	double	   *y;
	double	   *precision;
	double		sigma2;
} Meas;

/*
 * What scoring a candidate writes besides the candidate itself and its
 * slots of the round's arrays: one per scoring thread, so that threads
 * share nothing they write.  The caller's allocates through the host (and
 * its lists are the Aim's); another thread's comes from its arena,
 * allocated up front on the caller's thread.
 */
typedef struct Scratch
{
	const MrfEnv *env;
	MrfArena	arena;			/* threads other than the caller */
	int		   *fstart;			/* LightSet's clique lists (capcl + 1) */
	int		   *fvar;			/* (capcl * MAXV) */
	int		   *kidx;			/* FitsByComponents' clique list (capcl) */
	int32_t    *map;			/* MarginalOf's, the round's largest table */
} Scratch;

/* The learner's state. */
typedef struct Aim
{
	const MrfCode *rows;
	const MrfAimTables *tables;	/* instead of rows: counted tables */
	const int64_t *counts;
	int64_t		n;
	int			p;
	const int  *card;			/* the alphabets AIM runs on: ccard once compressed */
	/*
	 * Domain compression (CompressDomains): the rows' alphabets, each
	 * variable's map from a value to its code (NULL: nothing merged), the
	 * compressed alphabets and how many values each merged.
	 */
	const int  *ocard;
	int		  **cmap;
	int		   *cmapbuf;
	int		   *ccard;
	int		   *rare;
	const MrfEnv *env;
	int64_t		max_cand_cells;
	Cand	   *cand;
	int			ncand;
	int			capcand;
	int32_t    *hash;			/* open addressing over cand, -1 empty */
	int			hashsize;
	int64_t		cand_cells;
	double	   *deg;			/* per variable: workload marginals holding it */
	uint8_t    *strong;			/* default workload: p x p strong pairs */
	int			defaults;		/* the default workload */
	VarSet	   *cl;				/* the model's cliques (maximal) */
	int			m;
	int			capcl;
	MrfCliqueSet *set;
	double	   *logpot;
	double	   *mu;				/* clique marginals of logpot (probabilities) */
	MrfBp	   *bp;				/* the exact engine that computed mu, calibrated */
	int			structver;		/* bumped whenever the cliques change */
	/*
	 * The model's connected components (of its cliques' graph), as of
	 * structure version compver: comp[v] a variable's; for each component
	 * its cliques clist[cstart[k] .. cstart[k+1]-1], its cliques' cells,
	 * min-fill triangulation's cells (-1 above max_model_cells) and whether
	 * its cliques are a junction tree; the sums over components; vstamp[v]
	 * the structure version at which v's component last changed.
	 */
	int			compver;
	int		   *comp;
	int		   *vstamp;
	int		   *ufind;
	int			ncomp;
	int		   *cstart;
	int		   *clist;
	int		   *kidx;			/* FitsByComponents' clique list (capcl) */
	int64_t    *ccells;
	int64_t    *ctri;
	int		   *cdec;
	int64_t		cells_sum;
	int64_t		tri_sum;		/* over components with ctri >= 0 */
	int			tri_over;		/* components with ctri < 0 */
	int			nondec;			/* components whose cliques are no junction tree */
	double		loss;			/* the last estimate's loss */
	int64_t		steps;			/* estimator steps taken */
	int64_t		pdone;			/* progress: see ProgressTotal */
	int64_t		ptotal;
	int		   *fstart;			/* FitsUncovered's clique lists (capcl + 1) */
	int		   *fvar;			/* (capcl * MAXV) */
	Scratch		hs;				/* the caller's scratch: these lists, env */
	Meas	   *meas;
	int			nmeas;
	int			capmeas;
	int			triples;
	int			triples_skipped;
} Aim;

/* See aim.h. */
void
MrfAimDefaultOptions(MrfAimOptions *opt)
{
	memset(opt, 0, sizeof(*opt));
	MrfEstimateDefaultOptions(&opt->estimate);
	opt->max_model_cells = (int64_t) 1 << 16;
	opt->max_candidate_cells = (int64_t) 1 << 24;
	/*
	 * [MMSM22] re-estimate with 1000 steps each round; 100 warm-started
	 * steps are within 9% of the best workload error (250 steps, 2-5x the
	 * time) at rho 0.1, 1 and 10, where 25 left 9-24% more (docs/learners/aim.md, "AIM's
	 * defaults", bench/bench_aim_defaults.c).
	 */
	opt->round_iterations = 100;
}

/* Sorts a small set in place (insertion sort). */
static void
SortSet(VarSet *s)
{
	for (int i = 1; i < s->size; i++)
		for (int j = i; j > 0 && s->vars[j - 1] > s->vars[j]; j--)
		{
			int			t = s->vars[j];

			s->vars[j] = s->vars[j - 1];
			s->vars[j - 1] = t;
		}
}

/* Whether sorted a is a subset of sorted b. */
static int
Subset(const VarSet *a, const VarSet *b)
{
	int			j = 0;

	for (int i = 0; i < a->size; i++)
	{
		while (j < b->size && b->vars[j] < a->vars[i])
			j++;
		if (j == b->size || b->vars[j] != a->vars[i])
			return 0;
		j++;
	}
	return 1;
}

/* Whether two sets are equal. */
static int
SameSet(const VarSet *a, const VarSet *b)
{
	return a->size == b->size && memcmp(a->vars, b->vars, sizeof(int) * a->size) == 0;
}

/* Cells of a set's table, or -1 above limit. */
static int64_t
SetCells(const int *card, const VarSet *s, int64_t limit)
{
	return MrfVarsCells(card, s->size, s->vars, limit);
}

/*
 * The cells of the released model were its cliques cl[0..m-1] (ExpandModel:
 * the cliques over the rows' alphabets), or -1 above limit.  After the
 * rare-value compression a clique of few codes can hold a table of many
 * values: the model's cap bounds the release's tables too (a candidate
 * added with the cliques inside it still counted: an upper bound), which
 * is what the memory plan and the model's consumers assume.
 */
static int64_t
ReleasedCells(const Aim *a, const VarSet *cl, int m, int64_t limit)
{
	const int  *card = a->cmap != NULL ? a->ocard : a->card;
	int64_t		total = 0;

	for (int c = 0; c < m; c++)
	{
		int64_t		cells = SetCells(card, &cl[c], limit);

		if (cells < 0 || total > limit - cells)
			return -1;
		total += cells;
	}
	return total;
}

/*
 * After the compression: the cells the release over the rows' alphabets
 * may still add within the model's cap (ReleasedCells of the model's
 * cliques so far; 0 when they already pass it).
 */
static int64_t
ReleasedCellsLeft(const Aim *a, int64_t cap)
{
	int64_t		released = ReleasedCells(a, a->cl, a->m, cap);

	return released < 0 ? 0 : cap - released;
}

/* See aim.h. */
int
MrfAimWorkloadCheck(int p, int nworkload, const int *wstart, const int *wvar, int *why)
{
	*why = 0;
	if (nworkload < 1 || nworkload > MRF_AIM_MAX_WORKLOAD)
	{
		*why = 1;
		return 1;
	}
	for (int w = 0; w < nworkload; w++)
	{
		int			size = wstart[w + 1] - wstart[w];

		if (size < 1 || size > MAXV)
		{
			*why = 1;
			return w + 1;
		}
		for (int i = 0; i < size; i++)
		{
			int			v = wvar[wstart[w] + i];

			if (v < 0 || v >= p)
			{
				*why = 2;
				return w + 1;
			}
			for (int j = 0; j < i; j++)
				if (wvar[wstart[w] + j] == v)
				{
					*why = 2;
					return w + 1;
				}
		}
	}
	/* duplicates: quadratic, but workloads are small and checked once, in the plan */
	for (int w = 0; w < nworkload; w++)
	{
		VarSet		sw;

		sw.size = wstart[w + 1] - wstart[w];
		memcpy(sw.vars, wvar + wstart[w], sizeof(int) * sw.size);
		SortSet(&sw);
		for (int u = 0; u < w; u++)
		{
			VarSet		su;

			su.size = wstart[u + 1] - wstart[u];
			if (su.size != sw.size)
				continue;
			memcpy(su.vars, wvar + wstart[u], sizeof(int) * su.size);
			SortSet(&su);
			if (SameSet(&su, &sw))
			{
				*why = 3;
				return w + 1;
			}
		}
	}
	return 0;
}

/* A hash of a variable set. */
static uint64_t
SetHash(const VarSet *s)
{
	uint64_t	h = 1469598103934665603ULL ^ (uint64_t) s->size;

	for (int i = 0; i < s->size; i++)
		h = (h ^ (uint64_t) (s->vars[i] + 1)) * 1099511628211ULL;
	return h ^ (h >> 29);
}

/* Index of candidate s, or -1. */
static int
CandFind(const Aim *a, const VarSet *s)
{
	uint64_t	h;

	if (a->hashsize == 0)
		return -1;
	h = SetHash(s) & (uint64_t) (a->hashsize - 1);
	while (a->hash[h] >= 0)
	{
		if (SameSet(&a->cand[a->hash[h]].s, s))
			return a->hash[h];
		h = (h + 1) & (uint64_t) (a->hashsize - 1);
	}
	return -1;
}

/* Inserts index c into the hash (no duplicate check). */
static void
HashPut(Aim *a, int c)
{
	uint64_t	h = SetHash(&a->cand[c].s) & (uint64_t) (a->hashsize - 1);

	while (a->hash[h] >= 0)
		h = (h + 1) & (uint64_t) (a->hashsize - 1);
	a->hash[h] = c;
}

/* The index of set s (sorted) among t's tables, or -1. */
static int
TablesFind(const MrfAimTables *t, const VarSet *s)
{
	uint64_t	h = SetHash(s) & (uint64_t) (t->hashsize - 1);

	while (t->hash[h] >= 0)
	{
		int			i = t->hash[h];

		if (t->start[i + 1] - t->start[i] == s->size &&
			memcmp(t->vars + t->start[i], s->vars, sizeof(int) * s->size) == 0)
			return i;
		h = (h + 1) & (uint64_t) (t->hashsize - 1);
	}
	return -1;
}

/*
 * The exact table of s over the rows (row-major over sorted s), or a copy
 * of its counted table; -1 when the counted tables lack s.
 */
static int
CountTable(const Aim *a, const VarSet *s, int64_t *x, int64_t cells)
{
	int64_t		stride[MAXV];
	int64_t		st = 1;

	for (int i = s->size - 1; i >= 0; i--)
	{
		stride[i] = st;
		st *= a->card[s->vars[i]];
	}
	if (a->tables != NULL)
	{
		int			i = TablesFind(a->tables, s);
		int64_t		ocells = a->cmap ? SetCells(a->ocard, s, INT64_MAX) : cells;
		const int64_t *t;
		int			digit[MAXV] = {0};

		if (i < 0 || a->tables->offset[i + 1] - a->tables->offset[i] != ocells)
			return -1;
		t = a->counts + a->tables->offset[i];
		if (a->cmap == NULL)
		{
			memcpy(x, t, sizeof(int64_t) * cells);
			return 0;
		}
		/* a table over the rows' alphabets, summed into the compressed codes */
		memset(x, 0, sizeof(int64_t) * cells);
		for (int64_t o = 0; o < ocells; o++)
		{
			int64_t		idx = 0;

			for (int j = 0; j < s->size; j++)
				idx += stride[j] * a->cmap[s->vars[j]][digit[j]];
			x[idx] += t[o];
			for (int j = s->size - 1; j >= 0; j--)
			{
				if (++digit[j] < a->ocard[s->vars[j]])
					break;
				digit[j] = 0;
			}
		}
		return 0;
	}

	memset(x, 0, sizeof(int64_t) * cells);
	for (int64_t r = 0; r < a->n; r++)
	{
		const MrfCode *z = a->rows + r * a->p;
		int64_t		idx = 0;

		if (a->cmap != NULL)
			for (int i = 0; i < s->size; i++)
				idx += stride[i] * a->cmap[s->vars[i]][z[s->vars[i]]];
		else
			for (int i = 0; i < s->size; i++)
				idx += stride[i] * z[s->vars[i]];
		x[idx]++;
	}
	return 0;
}

/*
 * Adds candidate s (sorted) unless present; counts its table.  Returns its
 * index, -1 when its table would pass the candidates' cap (*skipped), -2
 * out of memory, or -3 when counted tables lack it.  Growing a->cand moves
 * it: no caller may hold a pointer into it across this call (Strengthen
 * copies the pick's set).
 */
static int
CandAdd(Aim *a, const VarSet *s, int workload, int *skipped)
{
	int			c = CandFind(a, s);
	int64_t		cells;

	*skipped = 0;
	if (c >= 0)
	{
		a->cand[c].workload |= workload;
		return c;
	}
	cells = SetCells(a->card, s, a->max_cand_cells);
	if (cells < 0 || a->cand_cells + cells > a->max_cand_cells)
	{
		*skipped = 1;
		return -1;
	}
	if (a->ncand == a->capcand)
	{
		int			cap = a->capcand ? 2 * a->capcand : 256;
		Cand	   *nc = MrfAlloc(a->env, sizeof(Cand) * cap);

		if (nc == NULL)
			return -2;
		if (a->cand)
			memcpy(nc, a->cand, sizeof(Cand) * a->ncand);
		MrfFree(a->env, a->cand);
		a->cand = nc;
		a->capcand = cap;
	}
	if (2 * (a->ncand + 1) > a->hashsize)
	{
		int			hs = a->hashsize ? 2 * a->hashsize : 1024;

		while (2 * (a->ncand + 1) > hs)
			hs *= 2;
		MrfFree(a->env, a->hash);
		a->hash = MrfAllocUninit(a->env, sizeof(int32_t) * hs);
		if (a->hash == NULL)
			return -2;
		a->hashsize = hs;
		for (int h = 0; h < hs; h++)
			a->hash[h] = -1;
		for (int i = 0; i < a->ncand; i++)
			HashPut(a, i);
	}
	c = a->ncand;
	memset(&a->cand[c], 0, sizeof(Cand));
	a->cand[c].s = *s;
	a->cand[c].cells = cells;
	a->cand[c].workload = workload;
	a->cand[c].x = MrfAllocUninit(a->env, sizeof(int64_t) * cells);
	if (a->cand[c].x == NULL)
		return -2;
	if (CountTable(a, s, a->cand[c].x, cells) != 0)
	{
		MrfFree(a->env, a->cand[c].x);
		if (a->cmap != NULL)
		{
			/*
			 * Counted tables are planned over the rows' alphabets (public):
			 * a set the plan left out for its size but that fits once
			 * compressed is skipped, as over the cap.
			 */
			*skipped = 1;
			return -1;
		}
		return -3;
	}
	MrfPoll(a->env, 0, 0);		/* a table of n rows: an interrupt check */
	a->cand_cells += cells;
	a->ncand++;
	HashPut(a, c);
	return c;
}

/*
 * Adds workload marginal s and its downward closure (every non-empty
 * subset) as candidates; the workload's degrees grow by s's variables.
 * MRF_OK with *skipped = 1 when its tables would pass the cap (nothing
 * added to the workload then; subsets already added stay candidates).
 */
static MrfStatus
AddWorkload(Aim *a, const VarSet *s, int *skipped)
{
	int			full = (1 << s->size) - 1;

	*skipped = 0;
	/* the marginal itself first: the largest table, the one the cap refuses */
	for (int mask = full; mask >= 1; mask--)
	{
		VarSet		sub;
		int			sk;
		int			c;

		sub.size = 0;
		for (int i = 0; i < s->size; i++)
			if (mask & (1 << i))
				sub.vars[sub.size++] = s->vars[i];
		c = CandAdd(a, &sub, mask == full, &sk);
		if (c == -2)
			return MRF_ENOMEM;
		if (c == -3)
			return MRF_EINVAL;
		if (sk)
		{
			*skipped = 1;
			if (mask == full)
				return MRF_OK;
		}
	}
	for (int i = 0; i < s->size; i++)
		a->deg[s->vars[i]] += 1.0;
	return MRF_OK;
}

/* See aim.h. */
int64_t
MrfAimClosureCells(int p, const int *card, int nworkload, const int *wstart,
				   const int *wvar, int64_t limit, int *ncandidates)
{
	int64_t		total = 0;
	int			count = 0;

	if (nworkload == 0)
	{
		/* one-ways and pairs */
		for (int i = 0; i < p; i++)
		{
			total += card[i];
			for (int j = i + 1; j < p; j++)
				total += (int64_t) card[i] * card[j];
			count += p - i;
			if (total > limit)
				return -1;
		}
		*ncandidates = count;
		return total;
	}
	/* an upper bound: subsets shared by several marginals counted each time */
	for (int w = 0; w < nworkload; w++)
	{
		int			size = wstart[w + 1] - wstart[w];

		for (int mask = 1; mask < (1 << size); mask++)
		{
			int			vars[MAXV];
			int			ns = 0;
			int64_t		cells;

			for (int i = 0; i < size; i++)
				if (mask & (1 << i))
					vars[ns++] = wvar[wstart[w] + i];
			cells = MrfVarsCells(card, ns, vars, limit);
			if (cells < 0 || total + cells > limit)
				return -1;
			total += cells;
			count++;
		}
	}
	*ncandidates = count;
	return total;
}

/* Whether a marginal of the workload (default: every pair) holds a pair. */
static int
WorkloadHasPair(const MrfAimOptions *opt)
{
	if (opt->nworkload == 0)
		return 1;
	for (int w = 0; w < opt->nworkload; w++)
		if (opt->wstart[w + 1] - opt->wstart[w] >= 2)
			return 1;
	return 0;
}

/* See aim.h. */
int
MrfAimBudget(int p, const MrfAimOptions *opt, MrfAimBudgetPlan *b)
{
	double		one_way = 0.0;
	int			schedule = opt->schedule;

	memset(b, 0, sizeof(*b));
	b->rounds = opt->rounds > 0 ? opt->rounds : MrfAimRounds(p);
	b->one_way_share = opt->one_way_share;
	if (p < 2 || b->rounds < 1)
		return -1;
	if (schedule == MRF_AIM_SCHEDULE_AUTO)
	{
		/* from public sizes (privacy.c MrfAimAutoPaper); n must be known */
		int			paper = MrfAimAutoPaper(opt->rho, opt->n, p);

		if (paper < 0)
			return -1;
		schedule = paper ? MRF_AIM_SCHEDULE_PAPER : MRF_AIM_SCHEDULE_SEEDED;
		/* [MMSM22]'s one-ways at 0.9 rho / T need T > 0.9 p: else the seed */
		if (schedule == MRF_AIM_SCHEDULE_PAPER && opt->one_way_share == 0.0 &&
			0.9 * p >= b->rounds)
			schedule = MRF_AIM_SCHEDULE_SEEDED;
	}
	b->schedule = schedule;
	if (schedule == MRF_AIM_SCHEDULE_SEEDED)
	{
		int			rounds_default;

		MrfAimSeedShares(opt->one_way_share,
						 opt->n > 0 ? MrfAimScheduleSignal(opt->rho, opt->n, p) : NAN,
						 &b->one_way_share, &b->seed_share, &b->seed_select_share,
						 &rounds_default);
		if (opt->seed_share > 0.0)
			b->seed_share = opt->seed_share;
		if (opt->seed_select_share > 0.0)
			b->seed_select_share = opt->seed_select_share;
		if (opt->rounds <= 0)
			b->rounds = rounds_default;
		b->seeded = WorkloadHasPair(opt);
	}
	if (b->seeded)
	{
		if (MrfAimSeededRates(opt->rho, p, b->rounds, b->one_way_share, b->seed_share,
							  b->seed_select_share,
							  &b->rho_one, &b->rho_seed_select, &b->rho_seed_measure,
							  &b->rho_measure, &b->rho_select) != 0)
			return -1;
	}
	else
	{
		/* no seed: its share goes to the rounds */
		b->seed_share = 0.0;
		b->seed_select_share = 0.0;
		if (MrfAimRates(opt->rho, p, b->rounds, b->one_way_share, &b->rho_one,
						&b->rho_measure, &b->rho_select) != 0)
			return -1;
		if (b->one_way_share == 0.0)
			b->one_way_share = 0.9 * p / b->rounds;
	}
	/* the fixed steps' spend, rounded up as it will be added: within rho */
	for (int i = 0; i < p; i++)
		one_way = MrfAimSpend(one_way, b->rho_one);
	if (b->seeded)
		one_way = MrfAimSpend(MrfAimSpend(one_way, b->rho_seed_select), b->rho_seed_measure);
	return one_way < opt->rho ? 0 : -1;
}

/*
 * The largest table AIM measures or holds a candidate's marginal in: a
 * candidate's that fits the junction tree, so at most the largest workload
 * marginal (default: the largest triple) and at most max_model_cells.
 */
static double
LargestMarginal(int p, const int *card, const MrfAimOptions *opt)
{
	double		largest = 1.0;

	if (opt->nworkload > 0)
		for (int w = 0; w < opt->nworkload; w++)
		{
			double		cells = 1.0;

			for (int i = opt->wstart[w]; i < opt->wstart[w + 1]; i++)
				cells *= card[opt->wvar[i]];
			largest = fmax(largest, cells);
		}
	else
	{
		int			top[3] = {1, 1, 1};

		for (int i = 0; i < p; i++)
			for (int j = 0; j < 3; j++)
				if (card[i] > top[j])
				{
					for (int l = 2; l > j; l--)
						top[l] = top[l - 1];
					top[j] = card[i];
					break;
				}
		largest = (double) top[0] * top[1] * top[2];
	}
	return fmin(largest, (double) opt->max_model_cells);
}

static double ScoringBytes(int p, int capcl, double largest, const MrfAimOptions *opt);
static int	ScoringThreads(const MrfAimOptions *opt);

/* See aim.h. */
double
MrfAimWorkspaceBytes(int p, const int *card, const MrfAimOptions *opt)
{
	MrfAimBudgetPlan b;
	double		largest = LargestMarginal(p, card, opt);
	/*
	 * T as the release runs it (the seeded schedule's 8 by default, the
	 * automatic schedule's choice from opt->n); when the budget cannot be
	 * planned (no n under the automatic schedule), [MMSM22]'s T, the larger
	 * of the two schedules'
	 */
	double		rounds = MrfAimBudget(p, opt, &b) == 0 ? (double) b.rounds :
		opt->rounds > 0 ? opt->rounds : (double) MrfAimRounds(p);

	/*
	 * The candidates' exact tables (int64) and their bookkeeping, the
	 * measurements (T + 2 p tables of doubles, each at most a candidate's:
	 * the one-ways, the seed's pairs, the rounds),
	 * and the model: its tables, marginals, a scoring copy and the
	 * estimator (about 8 doubles a clique cell plus the junction tree's 4
	 * tables a cluster cell, and an int32 map per measurement and cell);
	 * the scoring threads' scratch.
	 */
	return (double) opt->max_candidate_cells * sizeof(int64_t) +
		(rounds + 2.0 * p) * (largest * sizeof(double) + 256.0) +
		(double) opt->max_model_cells * (16.0 * sizeof(double) + 8.0 * sizeof(int32_t)) +
		(double) p * p + 65536.0 * (p + 1) +
		ScoringBytes(p, (int) fmin(rounds + 2.0 * p + 1, (double) INT32_MAX), largest, opt);
}

/* See aim.h. */
MrfStatus
MrfAimPlan(int p, const int *card, const MrfAimOptions *opt, MrfAimPlanReport *out)
{
	MrfAimBudgetPlan b;
	int			rounds;
	double		one_way = 0.0;
	uint64_t	num,
				den;
	int			why;
	double		per_round;

	memset(out, 0, sizeof(*out));
	if (p < 2 || MrfAimBudget(p, opt, &b) != 0 ||
		MrfAimGaussianVariance(b.rho_measure, &num, &den) != 0)
		return MRF_EINVAL;
	rounds = b.rounds;
	for (int i = 0; i < p; i++)
		if (card[i] < 2 || card[i] > MRF_CODE_CARD_MAX)
			return MRF_EINVAL;
	if (opt->nworkload > 0 &&
		MrfAimWorkloadCheck(p, opt->nworkload, opt->wstart, opt->wvar, &why) != 0)
		return MRF_EINVAL;
	for (int i = 0; i < p; i++)
		one_way = MrfAimSpend(one_way, b.rho_one);
	out->max_rounds = rounds;
	out->rho_one_way = one_way;
	out->schedule = b.schedule;
	out->seeded = b.seeded;
	out->one_way_share = b.one_way_share;
	out->seed_share = b.seed_share;
	out->seed_select_share = b.seed_select_share;
	out->rho_seed = b.seeded ? MrfAimSpend(b.rho_seed_select, b.rho_seed_measure) : 0.0;
	out->sigma2_first = (double) num / (double) den;
	out->epsilon_first = MrfAimSelectionEpsilon(b.rho_select);
	out->candidate_cells = MrfAimClosureCells(p, card, opt->nworkload, opt->wstart, opt->wvar,
											  opt->max_candidate_cells > 0 ?
											  opt->max_candidate_cells : INT64_MAX,
											  &out->candidates);
	if (out->candidate_cells < 0 && opt->nworkload == 0)
		out->candidates = p + p * (p - 1) / 2;
	out->model_cells = opt->max_model_cells < 32 * (int64_t) p ?
		opt->max_model_cells : 32 * (int64_t) p;
	/*
	 * Threads divide the scoring share only (the estimator's steps run on
	 * the calling thread), each thread past the first counted as half a
	 * core: the speed-ups measured for two threads on a quiet 2-core
	 * machine (docs/learners/aim.md, "Candidate scoring on threads": 1.4x at
	 * 48 columns, 1.6-1.8x at 96, 1.8-2.2x on DNA) are at or above what
	 * this predicts (1.4x, 1.5x, 1.5x), so the estimate stays an upper
	 * bound; one thread divides by exactly 1.
	 */
	out->threads = ScoringThreads(opt);
	if (out->threads < 1)
		out->threads = 1;
	per_round = 1.2e-6 * (double) out->candidates * p / (1.0 + 0.5 * (out->threads - 1)) +
		80e-9 * (double) opt->round_iterations * (double) out->model_cells;
	out->seconds_per_round = per_round;
	out->seconds_max = per_round * rounds +
		80e-9 * (double) opt->estimate.iterations * (double) out->model_cells;
	return MRF_OK;
}

/* See aim.h. */
double
MrfAimQuality(const int64_t *x, const double *est, int64_t cells, double weight,
			  double sigma)
{
	double		l1 = 0.0;

	for (int64_t c = 0; c < cells; c++)
		l1 += fabs((double) x[c] - est[c]);
	return weight * (l1 - EXPECTED_ABS_NOISE(sigma) * (double) cells);
}

/* See aim.h. */
int
MrfAimSelect(const double *quality, const double *weight, const uint8_t *eligible,
			 int count, double rho_select, MrfRng *rng)
{
	double		maxw = 0.0;

	for (int c = 0; c < count; c++)
		if (!eligible || eligible[c])
			maxw = fmax(maxw, weight[c]);
	return MrfExponentialSelect(quality, eligible, count,
								MrfAimSelectionScale(rho_select, maxw), rng);
}

/* Builds the clique set of cliques cl[0..m-1] (no cell limit: filtered). */
static MrfStatus
BuildSet(const Aim *a, const VarSet *cl, int m, MrfCliqueSet **out)
{
	int		   *start = MrfAlloc(a->env, sizeof(int) * (m + 1));
	int		   *var = MrfAlloc(a->env, sizeof(int) * (m * MAXV + 1));
	MrfStatus	status;

	if (!start || !var)
	{
		MrfFree(a->env, start);
		MrfFree(a->env, var);
		return MRF_ENOMEM;
	}
	start[0] = 0;
	for (int c = 0; c < m; c++)
	{
		memcpy(var + start[c], cl[c].vars, sizeof(int) * cl[c].size);
		start[c + 1] = start[c] + cl[c].size;
	}
	status = MrfCliqueSetBuildAlphabets(a->p, a->card, m, start, var,
										MRF_CLIQUES_MAX_TABLE_CELLS, a->env, out);
	MrfFree(a->env, start);
	MrfFree(a->env, var);
	return status;
}

/* The first clique of the current model holding s, or -1. */
static int
Holder(const VarSet *cl, int m, const VarSet *s)
{
	for (int c = 0; c < m; c++)
		if (Subset(s, &cl[c]))
			return c;
	return -1;
}

/*
 * The model with r[0..nr-1] added (no r inside another or an old clique
 * holding one): the cliques inside none of them, then r (ncl, *nm); its
 * set and the log-potentials of the same distribution (each old clique's
 * table added into the new clique holding it).
 */
static MrfStatus
WithClique(const Aim *a, const VarSet *r, int nr, VarSet *ncl, int *nm,
		   MrfCliqueSet **nset, double **nlogpot)
{
	MrfStatus	status;
	int			m = 0;
	int32_t    *map = NULL;
	int64_t		largest = 1;

	*nset = NULL;
	*nlogpot = NULL;
	for (int c = 0; c < a->m; c++)
	{
		int			inside = 0;

		for (int i = 0; i < nr && !inside; i++)
			inside = Subset(&a->cl[c], &r[i]);
		if (!inside)
			ncl[m++] = a->cl[c];
	}
	for (int i = 0; i < nr; i++)
		ncl[m++] = r[i];
	*nm = m;
	status = BuildSet(a, ncl, m, nset);
	if (status != MRF_OK)
		return status;
	*nlogpot = MrfAlloc(a->env, sizeof(double) * ((*nset)->cells + 1));
	for (int c = 0; c < m; c++)
		largest = (*nset)->offset[c + 1] - (*nset)->offset[c] > largest ?
			(*nset)->offset[c + 1] - (*nset)->offset[c] : largest;
	map = MrfAlloc(a->env, sizeof(int32_t) * largest);
	if (*nlogpot == NULL || map == NULL)
	{
		MrfFree(a->env, map);
		MrfFree(a->env, *nlogpot);
		MrfCliqueSetFree(a->env, *nset);
		*nlogpot = NULL;
		*nset = NULL;
		return MRF_ENOMEM;
	}
	for (int c = 0; c < a->m; c++)
	{
		int			t = Holder(ncl, m, &a->cl[c]);
		const double *src = a->logpot + a->set->offset[c];
		double	   *dst = *nlogpot + (*nset)->offset[t];
		int64_t		cells = (*nset)->offset[t + 1] - (*nset)->offset[t];

		MrfSubsetIndexMap(a->card, ncl[t].size, ncl[t].vars, a->cl[c].size,
						  a->cl[c].vars, map);
		for (int64_t x = 0; x < cells; x++)
			dst[x] += src[map[x]];
	}
	MrfFree(a->env, map);
	return MRF_OK;
}

/* out (cells of s) = n times the marginal over s of clique table mu_c over sup. */
static void
MarginalOf(const Aim *a, const VarSet *sup, const double *mu_c, const VarSet *s,
		   int32_t *map, double *out)
{
	int64_t		supcells = SetCells(a->card, sup, INT64_MAX);
	int64_t		cells = SetCells(a->card, s, INT64_MAX);

	MrfSubsetIndexMap(a->card, sup->size, sup->vars, s->size, s->vars, map);
	memset(out, 0, sizeof(double) * cells);
	for (int64_t x = 0; x < supcells; x++)
		out[map[x]] += mu_c[x];
	for (int64_t x = 0; x < cells; x++)
		out[x] *= (double) a->n;
}

/* The bp options of every exact inference here: a junction tree within limit. */
static MrfBpOptions
ExactWithin(int64_t limit)
{
	MrfBpOptions bo;

	memset(&bo, 0, sizeof(bo));
	bo.mode = MRF_INFER_EXACT;
	bo.max_exact_cells = limit > 0 ? limit : 1;
	return bo;
}

/*
 * Whether adding r keeps the model's junction tree within limit cells
 * (*fits; *tree_cells its cells) and, if so, the current model's marginal
 * of r, times n, into est (cells of r).
 */
static MrfStatus
ScoreUncovered(Aim *a, const VarSet *r, int64_t limit, VarSet *ncl, int32_t *map,
			   int *fits, int64_t *tree_cells, double *est)
{
	MrfCliqueSet *nset = NULL;
	double	   *nlogpot = NULL;
	double	   *marg = NULL;
	MrfBp	   *bp = NULL;
	MrfBpOptions bo = ExactWithin(limit);
	MrfBpInfo	info;
	MrfStatus	status;
	int			nm;

	*fits = 0;
	status = WithClique(a, r, 1, ncl, &nm, &nset, &nlogpot);
	if (status != MRF_OK)
		goto done;
	status = MrfBpBuild(nset, &bo, a->env, &bp);
	if (status == MRF_EINVAL)
	{
		/* no junction tree within limit: filtered out */
		status = MRF_OK;
		goto done;
	}
	if (status != MRF_OK)
		goto done;
	MrfBpGetInfo(bp, &info);
	if (!info.exact || info.cluster_cells > limit)
		goto done;
	marg = MrfAlloc(a->env, sizeof(double) * (nset->cells + 1));
	if (marg == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	status = MrfBpMarginals(bp, nlogpot, marg, NULL);
	if (status != MRF_OK)
		goto done;
	MarginalOf(a, &ncl[nm - 1], marg + nset->offset[nm - 1], r, map, est);
	*fits = 1;
	*tree_cells = info.cluster_cells;
done:
	if (bp)
		MrfBpFree(bp);
	if (nset)
		MrfCliqueSetFree(a->env, nset);
	MrfFree(a->env, nlogpot);
	MrfFree(a->env, marg);
	return status;
}

/*
 * The structure only (what MrfBpTriangulatedCells and the tree test read)
 * of the model's cliques idx[0..n-1] (idx NULL: the first n) less those
 * inside r, then r (r NULL: none), in sc's lists.
 */
static MrfCliqueSet
LightSet(Aim *a, Scratch *sc, const int *idx, int n, const VarSet *r)
{
	MrfCliqueSet light;
	int			m = 0;
	int64_t		cells = 0;

	sc->fstart[0] = 0;
	for (int i = 0; i <= n; i++)
	{
		const VarSet *c = i < n ? &a->cl[idx ? idx[i] : i] : r;

		if (c == NULL || (i < n && r != NULL && Subset(c, r)))
			continue;
		memcpy(sc->fvar + sc->fstart[m], c->vars, sizeof(int) * c->size);
		sc->fstart[m + 1] = sc->fstart[m] + c->size;
		cells += SetCells(a->card, c, INT64_MAX);
		m++;
	}
	memset(&light, 0, sizeof(light));
	light.p = a->p;
	light.k = a->set->k;
	light.card = (int *) a->card;
	light.m = m;
	light.start = sc->fstart;
	light.var = sc->fvar;
	light.cells = cells;
	return light;
}

/*
 * A structure's junction-tree size: the min-fill triangulation's cells
 * within max (*tri, -1 above) and whether its cliques are a junction tree
 * of their own (*dec).  A triangulation that had to fill says they are not
 * (the graph is not chordal), so the spanning-tree test runs only when it
 * did not; *dec is then whether they are, in every case.
 */
static MrfStatus
ShapeOf(Scratch *sc, const MrfCliqueSet *light, int64_t max, int64_t *tri, int *dec)
{
	int64_t		fill;
	MrfStatus	status;

	status = MrfBpTriangulatedCells(light, max, sc->env, tri, &fill);
	if (status != MRF_OK)
		return status;
	if (*tri >= 0 && fill > 0)
	{
		*dec = 0;
		return MRF_OK;
	}
	return MrfCliquesJunctionTree(light, sc->env, dec, NULL, NULL);
}

/*
 * Whether adding cd to the model keeps its junction tree within limit
 * (limit <= max): the test ScoreUncovered makes by building the engine,
 * made on the structure alone and remembered in cd for as long as the
 * model's cliques stay the same (a later round's larger limit then costs
 * nothing).  The cliques with cd are a junction tree of their own cells,
 * or the min-fill triangulation's cells count (MrfBpTriangulatedCells).
 * This is the reference of FitsByComponents, which gives the same answer.
 */
static MrfStatus
FitsUncovered(Aim *a, Scratch *sc, Cand *cd, int64_t limit, int64_t max, int *fits)
{
	*fits = 0;
	if (cd->fitver != a->structver)
	{
		MrfCliqueSet light = LightSet(a, sc, NULL, a->m, &cd->s);
		MrfStatus	status = ShapeOf(sc, &light, max, &cd->fittri, &cd->fitdec);

		if (status != MRF_OK)
			return status;
		cd->fitcells = light.cells;
		cd->fitver = a->structver;
	}
	*fits = (cd->fitdec && cd->fitcells <= limit) ||
		(cd->fittri >= 0 && cd->fittri <= limit);
	return MRF_OK;
}

/* The root of v's tree in a->ufind, halving the path. */
static int
UfRoot(int *uf, int v)
{
	while (uf[v] != v)
	{
		uf[v] = uf[uf[v]];
		v = uf[v];
	}
	return v;
}

/*
 * The model's connected components and each one's shape (ShapeOf, within
 * max) for the current structure version; see Aim.
 */
static MrfStatus
Components(Aim *a, int64_t max)
{
	int			p = a->p;

	if (a->compver == a->structver)
		return MRF_OK;
	for (int v = 0; v < p; v++)
		a->ufind[v] = v;
	for (int c = 0; c < a->m; c++)
		for (int i = 1; i < a->cl[c].size; i++)
		{
			int			x = UfRoot(a->ufind, a->cl[c].vars[0]);
			int			y = UfRoot(a->ufind, a->cl[c].vars[i]);

			if (x != y)
				a->ufind[x > y ? x : y] = x < y ? x : y;
		}
	/* components numbered by their lowest variable */
	a->ncomp = 0;
	for (int v = 0; v < p; v++)
	{
		int			r = UfRoot(a->ufind, v);

		a->comp[v] = r == v ? a->ncomp++ : a->comp[r];
	}
	/* each component's cliques, in the model's order (cdec counts them first) */
	memset(a->cstart, 0, sizeof(int) * (a->ncomp + 1));
	memset(a->cdec, 0, sizeof(int) * a->ncomp);
	for (int c = 0; c < a->m; c++)
		a->cstart[a->comp[a->cl[c].vars[0]] + 1]++;
	for (int k = 0; k < a->ncomp; k++)
		a->cstart[k + 1] += a->cstart[k];
	for (int c = 0; c < a->m; c++)
	{
		int			k = a->comp[a->cl[c].vars[0]];

		a->clist[a->cstart[k] + a->cdec[k]++] = c;
	}
	a->cells_sum = 0;
	a->tri_sum = 0;
	a->tri_over = 0;
	a->nondec = 0;
	for (int k = 0; k < a->ncomp; k++)
	{
		MrfCliqueSet light = LightSet(a, &a->hs, a->clist + a->cstart[k],
									  a->cstart[k + 1] - a->cstart[k], NULL);
		MrfStatus	status = ShapeOf(&a->hs, &light, max, &a->ctri[k], &a->cdec[k]);

		if (status != MRF_OK)
			return status;
		a->ccells[k] = light.cells;
		a->cells_sum += light.cells;
		if (a->ctri[k] >= 0)
			a->tri_sum += a->ctri[k];
		else
			a->tri_over++;
		a->nondec += !a->cdec[k];
	}
	a->compver = a->structver;
	return MRF_OK;
}

/*
 * FitsUncovered's answer from the part of the model cd touches.  The
 * cliques' graph is the disjoint union of its components', and both tests
 * split over them:
 *   - min-fill picks by fill, then neighbours, then index, all of which a
 *     vertex's component alone decides, and an elimination changes only its
 *     own component; so the order restricted to a component is the order of
 *     min-fill run on that component alone, and the clusters' cells (the
 *     triangulation's total, above max exactly when the sum is) add up;
 *   - cliques have a junction tree exactly when each component's have one:
 *     a maximum spanning tree weighs the sum of the components' (edges
 *     between components weigh 0), each at most its component's
 *     running-intersection weight, which adds up too, so the two totals
 *     are equal exactly when they are equal in every component.
 * So with cd added, the components cd's variables are in merge into one
 * (the only one that changes), whose shape is computed here and kept in cd
 * while those components stay the same (vstamp), and the others' shapes
 * are the model's (Components): per candidate, the work of its own
 * component instead of the whole model's.  Components must be current
 * (the caller's thread computes them) when another thread asks.
 */
static MrfStatus
FitsByComponents(Aim *a, Scratch *sc, Cand *cd, int64_t limit, int64_t max, int *fits)
{
	MrfStatus	status;

	*fits = 0;
	status = Components(a, max);
	if (status != MRF_OK)
		return status;
	if (cd->fitver != a->structver)
	{
		int			ks[MAXV];
		int			nk = 0;
		int			valid = cd->kver > 0;
		int64_t		cells = a->cells_sum;
		int64_t		tri = a->tri_sum;
		int			over = a->tri_over;
		int			nondec = a->nondec;

		for (int i = 0; i < cd->s.size; i++)
		{
			int			k = a->comp[cd->s.vars[i]];
			int			seen = 0;

			for (int j = 0; j < nk; j++)
				seen |= ks[j] == k;
			if (!seen)
				ks[nk++] = k;
			if (a->vstamp[cd->s.vars[i]] > cd->kver)
				valid = 0;
		}
		if (!valid)
		{
			int			n = 0;
			MrfCliqueSet light;

			for (int j = 0; j < nk; j++)
				for (int i = a->cstart[ks[j]]; i < a->cstart[ks[j] + 1]; i++)
					sc->kidx[n++] = a->clist[i];
			light = LightSet(a, sc, sc->kidx, n, &cd->s);
			status = ShapeOf(sc, &light, max, &cd->ktri, &cd->kdec);
			if (status != MRF_OK)
				return status;
			cd->kcells = light.cells;
			cd->kver = a->structver;
		}
		/* the other components' sums */
		for (int j = 0; j < nk; j++)
		{
			cells -= a->ccells[ks[j]];
			if (a->ctri[ks[j]] >= 0)
				tri -= a->ctri[ks[j]];
			else
				over--;
			nondec -= !a->cdec[ks[j]];
		}
		cd->fitcells = cd->kcells + cells;
		cd->fittri = cd->ktri >= 0 && over == 0 && cd->ktri + tri <= max ?
			cd->ktri + tri : -1;
		cd->fitdec = cd->kdec && nondec == 0;
		cd->fitver = a->structver;
	}
	*fits = (cd->fitdec && cd->fitcells <= limit) ||
		(cd->fittri >= 0 && cd->fittri <= limit);
	return MRF_OK;
}

/*
 * The current model's marginal of an uncovered r (times n) into est, read
 * off the calibrated engine by local elimination (MrfBpSetMarginalIn); when
 * an elimination table would pass the engine's limit, by the engine of the
 * model with r added (ScoreUncovered), the same distribution: on the
 * caller's thread only (another thread returns MRF_ENOMEM, to be redone
 * there).
 */
static MrfStatus
UncoveredMarginal(Aim *a, Scratch *sc, const VarSet *r, int64_t limit, VarSet *ncl,
				  int32_t *map, double *est)
{
	int64_t		cells = SetCells(a->card, r, INT64_MAX);
	MrfStatus	status;
	int			fits;
	int64_t		tc;

	status = MrfBpSetMarginalIn(a->bp, sc->env, r->size, r->vars, 0, est, NULL);
	if (status == MRF_OK)
	{
		for (int64_t x = 0; x < cells; x++)
			est[x] *= (double) a->n;
		return MRF_OK;
	}
	if (status != MRF_EINVAL)
		return status;
	if (sc != &a->hs)
		return MRF_ENOMEM;
	status = ScoreUncovered(a, r, limit, ncl, map, &fits, &tc, est);
	if (status == MRF_OK && !fits)
		status = MRF_EINVAL;
	return status;
}

/* mu = the clique marginals of the current model; *tree_cells its junction tree's. */
static MrfStatus
Infer(Aim *a, int64_t limit, int64_t *tree_cells)
{
	MrfBpOptions bo = ExactWithin(limit);
	MrfBp	   *bp = NULL;
	MrfBpInfo	info;
	MrfStatus	status;

	MrfFree(a->env, a->mu);
	if (a->bp)
		MrfBpFree(a->bp);
	a->bp = NULL;
	a->mu = MrfAlloc(a->env, sizeof(double) * (a->set->cells + 1));
	if (a->mu == NULL)
		return MRF_ENOMEM;
	status = MrfBpBuild(a->set, &bo, a->env, &bp);
	if (status != MRF_OK)
		return status;
	MrfBpGetInfo(bp, &info);
	*tree_cells = info.cluster_cells;
	status = MrfBpMarginals(bp, a->logpot, a->mu, NULL);
	/* kept calibrated: the round's candidates read their marginals off it */
	a->bp = bp;
	return status;
}

/* Runs the estimator over every measurement, warm-started from a->logpot. */
static MrfStatus
Estimate(Aim *a, int iterations, double stop_fraction, const MrfEstimateOptions *base,
		 int64_t limit, MrfEstimateReport *rep)
{
	MrfMeasurement *ms = MrfAlloc(a->env, sizeof(MrfMeasurement) * (a->nmeas + 1));
	MrfEstimateOptions eo = *base;
	MrfEstimateReport local;
	MrfStatus	status;

	if (ms == NULL)
		return MRF_ENOMEM;
	for (int i = 0; i < a->nmeas; i++)
	{
		ms[i].clique = Holder(a->cl, a->m, &a->meas[i].s);
		ms[i].size = a->meas[i].s.size;
		memcpy(ms[i].vars, a->meas[i].s.vars, sizeof(int) * ms[i].size);
		ms[i].y = a->meas[i].y;
		ms[i].precision = a->meas[i].precision;
		ms[i].sigma2 = a->meas[i].sigma2;
	}
	eo.iterations = iterations;
	eo.warm_start = 1;
	eo.stop_fraction = stop_fraction;
	eo.prior_loss = a->loss;
	eo.progress_base = a->pdone;
	eo.progress_total = a->ptotal;
	eo.bp = ExactWithin(limit);
	if (rep == NULL)
		rep = &local;
	status = MrfEstimate(a->set, a->card, ms, a->nmeas, a->n, &eo, a->env, a->logpot, rep);
	a->loss = rep->loss;
	a->steps += rep->iterations;
	MrfFree(a->env, ms);
	return status;
}

/* Measures candidate c at variance num/den into a new measurement. */
static MrfStatus
Measure(Aim *a, const Cand *c, uint64_t num, uint64_t den, MrfRng *rng)
{
	Meas	   *m;

	if (a->nmeas == a->capmeas)
		return MRF_EINVAL;
	m = &a->meas[a->nmeas];
	m->s = c->s;
	m->precision = NULL;
	m->sigma2 = (double) num / (double) den;
	m->y = MrfAllocUninit(a->env, sizeof(double) * c->cells);
	if (m->y == NULL)
		return MRF_ENOMEM;
	a->nmeas++;
	return MrfMeasureGaussian(c->x, c->cells, num, den, rng, m->y);
}

/*
 * Default workload: the pairs of picked become strong; every triple holding a
 * newly strong pair and another strong pair joins the workload (with its
 * closure), while the candidates' tables fit their cap.
 */
static MrfStatus
Strengthen(Aim *a, const VarSet *picked)
{
	int			p = a->p;

	/*
	 * A copy: the triples go into the candidates' array, which may move
	 * (CandAdd), and the rounds pass a candidate's own set.
	 */
	VarSet		r = *picked;

	for (int i = 0; i < r.size; i++)
		for (int j = i + 1; j < r.size; j++)
		{
			int			u = r.vars[i];
			int			v = r.vars[j];

			if (a->strong[(size_t) u * p + v])
				continue;
			a->strong[(size_t) u * p + v] = a->strong[(size_t) v * p + u] = 1;
			for (int l = 0; l < p; l++)
			{
				VarSet		t;
				int			c;
				int			skipped;
				MrfStatus	status;

				if (l == u || l == v ||
					!(a->strong[(size_t) u * p + l] || a->strong[(size_t) v * p + l]))
					continue;
				t.size = 3;
				t.vars[0] = u;
				t.vars[1] = v;
				t.vars[2] = l;
				SortSet(&t);
				c = CandFind(a, &t);
				if (c >= 0 && a->cand[c].workload)
					continue;
				status = AddWorkload(a, &t, &skipped);
				if (status != MRF_OK)
					return status;
				if (skipped)
					a->triples_skipped++;
				else
					a->triples++;
			}
		}
	return MRF_OK;
}

/*
 * The model takes r[0..nr-1] as cliques (WithClique: the same
 * distribution, warm start); the cliques' components are brought up to
 * date, r's being the only ones that changed.
 */
static MrfStatus
AddCliques(Aim *a, const VarSet *r, int nr, VarSet *ncl, const MrfAimOptions *opt)
{
	MrfCliqueSet *nset;
	double	   *nlogpot;
	int			nm;
	MrfStatus	status;

	status = WithClique(a, r, nr, ncl, &nm, &nset, &nlogpot);
	if (status != MRF_OK)
		return status;
	MrfCliqueSetFree(a->env, a->set);
	MrfFree(a->env, a->logpot);
	a->set = nset;
	a->logpot = nlogpot;
	memcpy(a->cl, ncl, sizeof(VarSet) * nm);
	a->m = nm;
	a->structver++;
	if (!opt->reference_fit && !opt->reference_scoring)
	{
		status = Components(a, opt->max_model_cells);
		if (status != MRF_OK)
			return status;
		for (int v = 0; v < a->p; v++)
			for (int i = 0; i < nr; i++)
				if (a->comp[v] == a->comp[r[i].vars[0]])
					a->vstamp[v] = a->structver;
	}
	return MRF_OK;
}

/*
 * The seeded schedule's seed (privacy.c MrfAimSeededRates; privacy.md 13):
 * MST's private tree (MrfMstSelectForest, the code MST runs) over the
 * candidates that are pairs, each pair's quality its L1 distance from the
 * current model, which holds only the one-way measurements here (MST's
 * product of one-way estimates); then every chosen pair is measured and
 * becomes a clique.  k = p minus the components of the candidate pairs'
 * graph (p - 1 for the default workload) selections of rho_seed_select / k
 * each and k tables at variance MrfMstGaussianVariance(k,
 * rho_seed_measure), as MST's M2 and M3.  *pairs: the pairs measured (k
 * or fewer under the cap); *selections: the selections run, on which the
 * caller charges the seed's share (any run spends it, a pair or not).
 */
static MrfStatus
Seed(Aim *a, const MrfAimBudgetPlan *b, const MrfAimOptions *opt, MrfRng *rng, VarSet *ncl,
	 int *pairs, int *selections, double *sigma2)
{
	int			p = a->p;
	int64_t		npairs = (int64_t) p * (p - 1) / 2;
	const int64_t **pair = MrfAlloc(a->env, sizeof(int64_t *) * (npairs + 1));
	const double **prob = MrfAlloc(a->env, sizeof(double *) * p);
	int		   *edges = MrfAlloc(a->env, sizeof(int) * 2 * p);
	int		   *cand = MrfAlloc(a->env, sizeof(int) * (npairs + 1));
	VarSet	   *forest = MrfAlloc(a->env, sizeof(VarSet) * p);
	int			k = 0;
	int			nedges = 0;
	int64_t		one_cells = 0;
	int64_t		released_left = INT64_MAX;	/* the release's cells the pairs may add */
	int			kept = 0;
	int64_t		progress[2];
	uint64_t	num,
				den;
	double		scale;
	MrfStatus	status = MRF_OK;

	*pairs = 0;
	*selections = 0;
	if (!pair || !prob || !edges || !cand || !forest)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	/* the model is the one-ways' here: clique i is {i} */
	for (int i = 0; i < p; i++)
		prob[i] = a->mu + a->set->offset[i];
	for (int v = 0; v < p; v++)
		a->ufind[v] = v;
	for (int i = 0, e = 0; i < p; i++)
		for (int j = i + 1; j < p; j++, e++)
		{
			VarSet		s = {2, {i, j}};
			int			c = CandFind(a, &s);
			int			x,
						y;

			cand[e] = c;
			pair[e] = c >= 0 ? a->cand[c].x : NULL;
			if (c < 0)
				continue;
			x = UfRoot(a->ufind, i);
			y = UfRoot(a->ufind, j);
			if (x != y)
			{
				a->ufind[x > y ? x : y] = x < y ? x : y;
				k++;
			}
		}
	if (k == 0)
		goto done;
	scale = MrfMstSelectionScale(b->rho_seed_select, k);
	if (!isfinite(scale) || scale <= 0.0 ||
		MrfMstGaussianVariance(k, b->rho_seed_measure, &num, &den) != 0)
	{
		status = MRF_EINVAL;
		goto done;
	}
	*sigma2 = (double) num / (double) den;
	/*
	 * within the model's cap: a forest's junction tree is its pairs and
	 * the one-ways of the variables outside them
	 */
	for (int i = 0; i < p; i++)
		one_cells += a->card[i];
	if (opt->max_model_cells - one_cells < 1)
		goto done;
	progress[0] = a->pdone;
	progress[1] = a->ptotal;
	status = MrfMstSelectForest(p, a->card, pair, prob, a->n, scale,
								opt->max_model_cells - one_cells, progress, rng, a->env,
								edges, &nedges, selections);
	if (status != MRF_OK)
		goto done;
	/*
	 * the pairs measured, then the model takes them all at once (a forest);
	 * after the compression, only the pairs (in the order selected) whose
	 * tables over the rows' alphabets keep the release within the model's
	 * cap (the alphabets and the selection's output: post-processing)
	 */
	if (a->cmap != NULL)
		released_left = ReleasedCellsLeft(a, opt->max_model_cells);
	for (int e = 0; e < nedges; e++)
	{
		const Cand *cd = &a->cand[cand[MrfMstPairIndex(p, edges[2 * e], edges[2 * e + 1])]];

		if (a->cmap != NULL)
		{
			int64_t		cells = SetCells(a->ocard, &cd->s, released_left);

			if (cells < 0)
				continue;
			released_left -= cells;
		}
		status = Measure(a, cd, num, den, rng);
		if (status != MRF_OK)
			goto done;
		forest[kept++] = cd->s;
	}
	nedges = kept;
	if (nedges > 0)
		status = AddCliques(a, forest, nedges, ncl, opt);
	for (int e = 0; e < nedges && status == MRF_OK && a->defaults; e++)
		status = Strengthen(a, &forest[e]);
	if (status != MRF_OK)
		goto done;
	*pairs = nedges;
done:
	MrfFree(a->env, pair);
	MrfFree(a->env, prob);
	MrfFree(a->env, edges);
	MrfFree(a->env, cand);
	MrfFree(a->env, forest);
	return status;
}

/* Frees everything a holds but the outputs. */
static void
AimFree(Aim *a)
{
	for (int c = 0; c < a->ncand; c++)
		MrfFree(a->env, a->cand[c].x);
	MrfFree(a->env, a->cand);
	MrfFree(a->env, a->hash);
	MrfFree(a->env, a->deg);
	MrfFree(a->env, a->strong);
	MrfFree(a->env, a->cl);
	MrfFree(a->env, a->fstart);
	MrfFree(a->env, a->fvar);
	MrfFree(a->env, a->comp);
	MrfFree(a->env, a->vstamp);
	MrfFree(a->env, a->ufind);
	MrfFree(a->env, a->cstart);
	MrfFree(a->env, a->clist);
	MrfFree(a->env, a->kidx);
	MrfFree(a->env, a->ccells);
	MrfFree(a->env, a->ctri);
	MrfFree(a->env, a->cdec);
	for (int i = 0; i < a->nmeas; i++)
	{
		MrfFree(a->env, a->meas[i].y);
		MrfFree(a->env, a->meas[i].precision);
	}
	MrfFree(a->env, a->cmap);
	MrfFree(a->env, a->cmapbuf);
	MrfFree(a->env, a->ccard);
	MrfFree(a->env, a->rare);
	MrfFree(a->env, a->meas);
	MrfFree(a->env, a->mu);
	if (a->bp)
		MrfBpFree(a->bp);
	if (a->set)
		MrfCliqueSetFree(a->env, a->set);
	MrfFree(a->env, a->logpot);
}

/*
 * Progress in units of work: the first estimate (from the one-ways) and
 * each round are 1 (scoring the candidates) plus their estimator steps
 * (round_iterations, however many the adaptive stop takes), the final
 * estimate its iterations; round t starts at (t + 1) units a round.  The
 * rounds after round t are those the budget left (rho - used, used
 * counting round t) pays for at the current rates (annealing only makes
 * them fewer), so the total is an upper bound that shrinks.
 */
static int64_t
ProgressTotal(int t, double rho, double used, double per_round, int max_rounds,
			  const MrfAimOptions *opt)
{
	double		after = per_round > 0.0 ? ceil(fmax(rho - used, 0.0) / per_round) : 0.0;

	after = fmin(after, (double) (max_rounds - t - 1));
	return ((int64_t) t + 2 + (int64_t) after) * (1 + opt->round_iterations) +
		opt->estimate.iterations;
}

/*
 * AIM's domain compression, as MST's (MrfCompressRare; privacy.md 13): from
 * the noisy one-way measurements (meas[i] and cand[i] are variable i's, all
 * at one sigma), each variable's values below 3 sigma merge into its last
 * code.  When some do, AIM runs on the compressed alphabets from here on:
 * the one-way candidates' tables and measurements are summed into the
 * codes (a merged cell's variance is the sum of its cells': precision
 * divided by how many it merged), and every later table is counted
 * through the maps.  Variables of at most `spared` values keep all of
 * them (0: none spared; see AIM_PAPER_SPARED_ALPHABET).  Reads the
 * measurements and the public alphabets only: post-processing.
 */
static MrfStatus
CompressDomains(Aim *a, double sigma, int spared, MrfAimReport *rep)
{
	int			p = a->p;
	int		   *oneoff = MrfAlloc(a->env, sizeof(int) * (p + 1));
	double	   *y1 = NULL;
	int			merged = 0;

	if (oneoff == NULL)
		return MRF_ENOMEM;
	oneoff[0] = 0;
	for (int i = 0; i < p; i++)
		oneoff[i + 1] = oneoff[i] + a->card[i];
	y1 = MrfAlloc(a->env, sizeof(double) * oneoff[p]);
	a->cmapbuf = MrfAlloc(a->env, sizeof(int) * oneoff[p]);
	a->ccard = MrfAlloc(a->env, sizeof(int) * p);
	a->rare = MrfAlloc(a->env, sizeof(int) * p);
	a->cmap = MrfAlloc(a->env, sizeof(int *) * p);
	if (!y1 || !a->cmapbuf || !a->ccard || !a->rare || !a->cmap)
	{
		MrfFree(a->env, oneoff);
		MrfFree(a->env, y1);
		return MRF_ENOMEM;
	}
	for (int i = 0; i < p; i++)
		memcpy(y1 + oneoff[i], a->meas[i].y, sizeof(double) * a->card[i]);
	MrfCompressRare(p, a->card, oneoff, y1, sigma, a->cmapbuf, a->ccard, a->rare);
	for (int i = 0; i < p; i++)
	{
		if (a->card[i] <= spared)
		{
			for (int v = 0; v < a->card[i]; v++)
				a->cmapbuf[oneoff[i] + v] = v;
			a->ccard[i] = a->card[i];
			a->rare[i] = 0;
		}
		a->cmap[i] = a->cmapbuf + oneoff[i];
		merged += a->rare[i] > 0;
	}
	MrfFree(a->env, y1);
	if (merged == 0)
	{
		/* nothing merged: AIM runs as without compression */
		MrfFree(a->env, oneoff);
		MrfFree(a->env, a->cmap);
		a->cmap = NULL;
		return MRF_OK;
	}
	for (int i = 0; i < p; i++)
	{
		Cand	   *cd = &a->cand[i];
		Meas	   *m = &a->meas[i];
		int			k = a->ccard[i];
		int64_t    *cx;
		double	   *cy;
		double	   *prec;

		if (a->rare[i] == 0)
			continue;
		cx = MrfAlloc(a->env, sizeof(int64_t) * k);
		cy = MrfAlloc(a->env, sizeof(double) * k);
		prec = MrfAlloc(a->env, sizeof(double) * k);
		if (!cx || !cy || !prec)
		{
			MrfFree(a->env, cx);
			MrfFree(a->env, cy);
			MrfFree(a->env, prec);
			MrfFree(a->env, oneoff);
			return MRF_ENOMEM;
		}
		for (int v = 0; v < a->card[i]; v++)
		{
			cx[a->cmap[i][v]] += cd->x[v];
			cy[a->cmap[i][v]] += m->y[v];
		}
		for (int c = 0; c < k; c++)
			prec[c] = 1.0 / m->sigma2;
		prec[k - 1] /= (double) a->rare[i];
		MrfFree(a->env, cd->x);
		MrfFree(a->env, m->y);
		cd->x = cx;
		a->cand_cells -= cd->cells - k;
		cd->cells = k;
		m->y = cy;
		m->precision = prec;
		rep->compressed++;
		rep->rare_values += a->rare[i];
	}
	MrfFree(a->env, oneoff);
	a->ocard = a->card;
	a->card = a->ccard;
	return MRF_OK;
}

/*
 * The model over the rows' alphabets from the model over the compressed
 * ones (MST's undo_compress): each clique's table over the original values,
 * a merged code's log-potential spread evenly over its rare values by
 * subtracting log rare[i] once, in the first clique holding variable i.
 */
static MrfStatus
ExpandModel(const Aim *a, MrfCliqueSet **set_out, double **logpot_out)
{
	const MrfCliqueSet *cs = a->set;
	MrfCliqueSet *os = NULL;
	double	   *lp;
	int		   *owner = MrfAlloc(a->env, sizeof(int) * a->p);
	MrfStatus	status;

	if (owner == NULL)
		return MRF_ENOMEM;
	status = MrfCliqueSetBuildAlphabets(a->p, a->ocard, cs->m, cs->start, cs->var, 0, a->env, &os);
	if (status != MRF_OK)
	{
		MrfFree(a->env, owner);
		return status;
	}
	lp = MrfAlloc(a->env, sizeof(double) * (os->cells + 1));
	if (lp == NULL)
	{
		MrfFree(a->env, owner);
		MrfCliqueSetFree(a->env, os);
		return MRF_ENOMEM;
	}
	for (int i = 0; i < a->p; i++)
		owner[i] = -1;
	for (int c = 0; c < cs->m; c++)
		for (int j = cs->start[c]; j < cs->start[c + 1]; j++)
			if (owner[cs->var[j]] < 0)
				owner[cs->var[j]] = c;
	for (int c = 0; c < cs->m; c++)
	{
		int			size = cs->start[c + 1] - cs->start[c];
		const int  *vars = cs->var + cs->start[c];
		int64_t		stride[MAXV];
		int64_t		st = 1;
		int			digit[MAXV] = {0};
		const double *th = a->logpot + cs->offset[c];

		for (int j = size - 1; j >= 0; j--)
		{
			stride[j] = st;
			st *= a->ccard[vars[j]];
		}
		for (int64_t o = os->offset[c]; o < os->offset[c + 1]; o++)
		{
			int64_t		idx = 0;
			double		v;

			for (int j = 0; j < size; j++)
				idx += stride[j] * a->cmap[vars[j]][digit[j]];
			v = th[idx];
			for (int j = 0; j < size; j++)
				if (owner[vars[j]] == c && a->rare[vars[j]] > 0 &&
					a->cmap[vars[j]][digit[j]] == a->ccard[vars[j]] - 1)
					v -= log((double) a->rare[vars[j]]);
			lp[o] = v;
			for (int j = size - 1; j >= 0; j--)
			{
				if (++digit[j] < a->ocard[vars[j]])
					break;
				digit[j] = 0;
			}
		}
	}
	MrfFree(a->env, owner);
	*set_out = os;
	*logpot_out = lp;
	return MRF_OK;
}

/* MrfAimLearn and MrfAimLearnTables: the exact tables from rows, or from counted tables. */
/* A round's scoring: what every candidate's score reads and writes. */
typedef struct Scoring
{
	Aim		   *a;
	const MrfAimOptions *opt;
	int64_t		limit;
	double		sigma;
	double	   *score;
	double	   *weight;
	double	   *est;
	const int64_t *estoff;
	uint8_t    *eligible;
	uint8_t    *redo;			/* a thread could not score it: the caller will */
	Scratch    *sc;				/* the threaded pass: one a thread */
	VarSet	   *ncl;			/* the caller's, for ScoreUncovered */
	int64_t		released_left;	/* compressed: the cells the release may add */
} Scoring;

/*
 * Candidate c's weight, whether it is eligible (its marginal known and,
 * uncovered, its addition keeping the junction tree within the round's
 * limit) and its quality, with the scratch sc of the thread running it.
 * A candidate's result is a function of the model and the candidate alone
 * (its own remembered fit included), computed by the same operations on
 * any thread, so the round's arrays do not depend on the threads.
 */
static MrfStatus
ScoreCandidate(Scoring *g, Scratch *sc, int c)
{
	Aim		   *a = g->a;
	const MrfAimOptions *opt = g->opt;
	Cand	   *cd = &a->cand[c];
	double	   *est = g->est + g->estoff[c];
	int			h = Holder(a->cl, a->m, &cd->s);
	double		w = 0.0;

	for (int i = 0; i < cd->s.size; i++)
		w += a->deg[cd->s.vars[i]];
	if (w <= 0.0)
		return MRF_OK;			/* no workload marginal meets it */
	if (h >= 0)
	{
		MarginalOf(a, &a->cl[h], a->mu + a->set->offset[h], &cd->s, sc->map, est);
		g->eligible[c] = 1;
	}
	else
	{
		MrfStatus	status;
		int			fits;
		int64_t		tc;

		/* uncovered: a larger table can exceed any junction tree's budget */
		if (cd->cells > g->limit)
			return MRF_OK;
		/* nor may the release over the rows' alphabets pass the model's cap */
		if (a->cmap != NULL && SetCells(a->ocard, &cd->s, g->released_left) < 0)
			return MRF_OK;
		if (opt->reference_scoring)
			status = ScoreUncovered(a, &cd->s, g->limit, g->ncl, sc->map, &fits, &tc, est);
		else
		{
			status = opt->reference_fit ?
				FitsUncovered(a, sc, cd, g->limit, opt->max_model_cells, &fits) :
				FitsByComponents(a, sc, cd, g->limit, opt->max_model_cells, &fits);
			if (status == MRF_OK && fits)
				status = UncoveredMarginal(a, sc, &cd->s, g->limit, g->ncl, sc->map, est);
		}
		if (status != MRF_OK)
			return status;
		g->eligible[c] = fits;
	}
	if (!g->eligible[c])
		return MRF_OK;
	g->weight[c] = w;
	g->score[c] = MrfAimQuality(cd->x, est, cd->cells, w, g->sigma);
	return MRF_OK;
}

/*
 * MrfWorkers' item: candidate i on thread th, in that thread's arena; a
 * candidate it cannot finish (its arena too small, or an elimination table
 * over the engine's limit) is left to the caller's thread.
 */
static void
ScoreItem(void *arg, int th, int64_t i)
{
	Scoring    *g = (Scoring *) arg;
	Scratch    *sc = &g->sc[th];

	MrfArenaReset(&sc->arena);
	if (ScoreCandidate(g, sc, (int) i) != MRF_OK)
	{
		g->eligible[i] = 0;
		g->weight[i] = 0.0;
		g->score[i] = 0.0;
		g->redo[i] = 1;
	}
}

/*
 * A scoring thread's arena: what one candidate's size test (bp.c's
 * min-fill Triangulate and MrfCliquesJunctionTree over at most capcl
 * cliques of p variables) and its local elimination (MrfBpSetMarginalIn:
 * two ints and a factor a cluster, at most p clusters, and its tables;
 * eight tables of the largest marginal, at least 4,096 cells) allocate,
 * with the allocations' headers; a candidate that needs more is scored
 * again on the caller's thread.
 */
static double
ArenaBytes(int p, int capcl, double largest)
{
	double		words = (double) ((p + 63) / 64);
	double		tri = 8.0 * p * words + 24.0 * words + 24.0 * p + 4.0 * (p + 1) +
		4.0 * (double) p * p;
	double		tree = 4.0 * (4.0 * capcl + p);
	double		elim = 80.0 * (p + 1) + 64.0 * fmax(largest, 4096.0);

	return tri + tree + elim + 65536.0;
}

/*
 * The threads that score a round's candidates (MrfAimOptions.threads, else
 * the learner's setting), each in its arena (one thread too: an arena
 * spares the host's allocator a candidate's tables); 0 for the reference
 * scoring, which builds an engine a candidate through the host.
 */
static int
ScoringThreads(const MrfAimOptions *opt)
{
	int			threads = opt->threads > 0 ? opt->threads : MrfFwThreads();

	if (opt->reference_scoring)
		return 0;
	if (threads < 1)
		return 1;
	return threads > MRF_WORKERS_MAX ? MRF_WORKERS_MAX : threads;
}

/*
 * Bytes of the scoring threads' scratch: an arena each, the clique lists
 * and a map over the largest table.
 */
static double
ScoringBytes(int p, int capcl, double largest, const MrfAimOptions *opt)
{
	int			threads = ScoringThreads(opt);

	return threads * ((opt->thread_arena_bytes > 0 ? (double) opt->thread_arena_bytes :
					   ArenaBytes(p, capcl, largest)) +
					  4.0 * ((2.0 + MAXV) * capcl + 1.0) + 4.0 * (largest + 1.0) + 64.0);
}

/*
 * Scores every candidate of the round (g), on nthreads threads with their
 * scratch in g->sc (one thread: the caller's, polling between candidates;
 * g->sc NULL: the reference scoring, through the host).
 * The threads only read the model (its engine's queries prepared, its
 * components current) and each writes its own candidates' slots; the
 * caller polls only with no other thread running (MrfWorkersPass), then
 * scores in order what the threads left.  *redone counts those.
 */
static MrfStatus
ScoreRound(Scoring *g, int nthreads, int64_t pdone, int64_t ptotal, int64_t *redone)
{
	Aim		   *a = g->a;
	MrfStatus	status;
	MrfWorkers	workers;

	if (g->sc == NULL)
	{
		/* the reference scoring: through the host, in order */
		for (int c = 0; c < a->ncand; c++)
		{
			MrfPoll(a->env, pdone, ptotal);
			status = ScoreCandidate(g, &a->hs, c);
			if (status != MRF_OK)
				return status;
		}
		return MRF_OK;
	}
	if (!g->opt->reference_fit)
	{
		status = Components(a, g->opt->max_model_cells);
		if (status != MRF_OK)
			return status;
	}
	status = MrfBpPrepareQueries(a->bp);
	if (status != MRF_OK)
		return status;
	if (nthreads < 2)
	{
		/* one thread: the caller, in its arena, polling between candidates */
		for (int c = 0; c < a->ncand; c++)
		{
			MrfPoll(a->env, pdone, ptotal);
			ScoreItem(g, 0, c);
		}
	}
	else
	{
		MrfWorkersInit(&workers, a->env, nthreads, a->ncand, 1);
		workers.arg = g;
		workers.item = ScoreItem;
		MrfWorkersPass(&workers, pdone, ptotal);
	}
	for (int c = 0; c < a->ncand; c++)
		if (g->redo[c])
		{
			MrfPoll(a->env, pdone, ptotal);
			status = ScoreCandidate(g, &a->hs, c);
			if (status != MRF_OK)
				return status;
			(*redone)++;
		}
	return MRF_OK;
}

/* FNV-1a of the round's scores, weights and eligibility in candidate order, into h. */
static uint64_t
ScoreDigest(uint64_t h, const double *score, const double *weight, const uint8_t *eligible,
			int n)
{
	for (int c = 0; c < n; c++)
	{
		uint64_t	v[3];

		memcpy(&v[0], &score[c], sizeof(double));
		memcpy(&v[1], &weight[c], sizeof(double));
		v[2] = eligible[c];
		for (int k = 0; k < 3; k++)
			for (int b = 0; b < 8; b++)
			{
				h ^= (v[k] >> (8 * b)) & 0xff;
				h *= UINT64_C(1099511628211);
			}
	}
	return h;
}

static MrfStatus
AimLearn(const MrfCode *rows, const MrfAimTables *tables, const int64_t *counts, int64_t n,
		 int p, const int *card, const MrfAimOptions *opt, MrfRng *rng, const MrfEnv *env,
		 MrfCliqueSet **set_out, double **logpot_out, MrfAimReport *rep)
{
	Aim			a;
	MrfStatus	status = MRF_OK;
	MrfAimBudgetPlan b;
	int			rounds;
	double		rho = opt->rho;
	double		rho_one;
	double		rho_measure;
	double		rho_select;
	double		used = 0.0;
	uint64_t	num,
				den;
	double	   *score = NULL;
	double	   *weight = NULL;	/* per candidate: w_r */
	double	   *est = NULL;		/* per candidate: the estimate's table, cells */
	int64_t    *estoff = NULL;
	uint8_t    *eligible = NULL;
	VarSet	   *ncl = NULL;
	int32_t    *map = NULL;
	int64_t		largest = 1;
	int64_t		tree_cells = 0;
	int			t0 = 0;			/* 1 after a seed: progress units before the rounds */
	int			why;
	int			nthreads = ScoringThreads(opt);
	Scratch    *tsc = NULL;		/* the scoring threads' (none: the reference) */
	uint8_t    *redo = NULL;

	memset(&a, 0, sizeof(a));
	memset(rep, 0, sizeof(*rep));
	rep->score_digest = UINT64_C(14695981039346656037);
	*set_out = NULL;
	*logpot_out = NULL;
	if (p < 2 || n < 1 || opt->max_model_cells < 1 || opt->round_iterations < 0 ||
		opt->estimate.iterations < 1 || opt->estimate.iterations > MRF_ESTIMATE_MAX_ITERATIONS)
		return MRF_EINVAL;
	{
		/* the automatic schedule's n: the rows' (public) */
		MrfAimOptions bo = *opt;

		bo.n = n;
		if (MrfAimBudget(p, &bo, &b) != 0)
			return MRF_EINVAL;
	}
	rounds = b.rounds;
	rep->max_rounds = rounds;
	rep->schedule = b.schedule;
	rep->one_way_share = b.one_way_share;
	rep->seed_share = b.seed_share;
	rep->seed_select_share = b.seed_select_share;
	rho_one = b.rho_one;
	rho_measure = b.rho_measure;
	rho_select = b.rho_select;
	for (int i = 0; i < p; i++)
		if (card[i] < 2 || card[i] > MRF_CODE_CARD_MAX)
			return MRF_EINVAL;
	if (opt->nworkload > 0 &&
		MrfAimWorkloadCheck(p, opt->nworkload, opt->wstart, opt->wvar, &why) != 0)
		return MRF_EINVAL;

	a.rows = rows;
	a.tables = tables;
	a.counts = counts;
	a.n = n;
	a.p = p;
	a.card = card;
	a.env = env;
	a.max_cand_cells = opt->max_candidate_cells > 0 ? opt->max_candidate_cells : INT64_MAX;
	a.defaults = opt->nworkload == 0;
	a.structver = 1;
	a.capcl = 2 * p + rounds + 1;
	a.capmeas = 2 * p + rounds + 1;
	a.deg = MrfAlloc(env, sizeof(double) * p);
	a.cl = MrfAlloc(env, sizeof(VarSet) * a.capcl);
	a.meas = MrfAlloc(env, sizeof(Meas) * a.capmeas);
	a.fstart = MrfAlloc(env, sizeof(int) * (a.capcl + 1));
	a.fvar = MrfAlloc(env, sizeof(int) * a.capcl * MAXV);
	a.comp = MrfAlloc(env, sizeof(int) * p);
	a.vstamp = MrfAlloc(env, sizeof(int) * p);
	a.ufind = MrfAlloc(env, sizeof(int) * p);
	a.cstart = MrfAlloc(env, sizeof(int) * (p + 1));
	a.clist = MrfAlloc(env, sizeof(int) * a.capcl);
	a.kidx = MrfAlloc(env, sizeof(int) * a.capcl);
	a.ccells = MrfAlloc(env, sizeof(int64_t) * p);
	a.ctri = MrfAlloc(env, sizeof(int64_t) * p);
	a.cdec = MrfAlloc(env, sizeof(int) * p);
	ncl = MrfAlloc(env, sizeof(VarSet) * a.capcl);
	if (a.defaults)
		a.strong = MrfAlloc(env, (size_t) p * p);
	if (!a.deg || !a.cl || !a.meas || !ncl || !a.fstart || !a.fvar ||
		!a.comp || !a.vstamp || !a.ufind || !a.cstart || !a.clist || !a.kidx ||
		!a.ccells || !a.ctri || !a.cdec || (a.defaults && !a.strong))
	{
		status = MRF_ENOMEM;
		goto done;
	}
	a.hs.env = env;
	a.hs.fstart = a.fstart;
	a.hs.fvar = a.fvar;
	a.hs.kidx = a.kidx;
	if (nthreads > 0)
	{
		/* every scoring thread's memory, allocated here on the caller's thread */
		double		arena = opt->thread_arena_bytes > 0 ? (double) opt->thread_arena_bytes :
			ArenaBytes(p, a.capcl, LargestMarginal(p, card, opt));

		tsc = MrfAlloc(env, sizeof(Scratch) * nthreads);
		if (tsc == NULL)
		{
			status = MRF_ENOMEM;
			goto done;
		}
		for (int i = 0; i < nthreads; i++)
		{
			tsc[i].fstart = MrfAlloc(env, sizeof(int) * (a.capcl + 1));
			tsc[i].fvar = MrfAlloc(env, sizeof(int) * a.capcl * MAXV);
			tsc[i].kidx = MrfAlloc(env, sizeof(int) * a.capcl);
			if (!tsc[i].fstart || !tsc[i].fvar || !tsc[i].kidx ||
				MrfArenaInit(&tsc[i].arena, (size_t) arena, env) != MRF_OK)
			{
				status = MRF_ENOMEM;
				goto done;
			}
			tsc[i].env = &tsc[i].arena.env;
		}
	}

	/* the candidates: every one-way, then the workload's closure */
	for (int i = 0; i < p; i++)
	{
		VarSet		s = {1, {i}};
		int			sk;

		int			c = CandAdd(&a, &s, 0, &sk);

		if (c < 0)
		{
			status = sk || c == -3 ? MRF_EINVAL : MRF_ENOMEM;
			goto done;
		}
	}

	/*
	 * 1. the model starts from one clique a variable; measure every one-way,
	 * then merge rare values (post-processing), before the workload's
	 * candidates are counted over the compressed alphabets
	 */
	rep->sigma2_first = NAN;
	if (MrfAimGaussianVariance(rho_one, &num, &den) != 0)
	{
		status = MRF_EINVAL;
		goto done;
	}
	for (int i = 0; i < p; i++)
	{
		a.cl[i].size = 1;
		a.cl[i].vars[0] = i;
		status = Measure(&a, &a.cand[i], num, den, rng);
		if (status != MRF_OK)
			goto done;
		used = MrfAimSpend(used, rho_one);
	}
	rep->rho_one_way = used;
	status = CompressDomains(&a, sqrt((double) num / (double) den),
							 b.schedule == MRF_AIM_SCHEDULE_PAPER ? AIM_PAPER_SPARED_ALPHABET : 0,
							 rep);
	if (status != MRF_OK)
		goto done;

	if (a.defaults)
	{
		for (int i = 0; i < p; i++)
			for (int j = i + 1; j < p; j++)
			{
				VarSet		s = {2, {i, j}};
				int			sk;

				status = AddWorkload(&a, &s, &sk);
				if (status != MRF_OK)
					goto done;
				if (sk)
				{
					status = MRF_EINVAL;
					goto done;
				}
			}
	}
	else
		for (int w = 0; w < opt->nworkload; w++)
		{
			VarSet		s;
			int			sk;

			s.size = opt->wstart[w + 1] - opt->wstart[w];
			memcpy(s.vars, opt->wvar + opt->wstart[w], sizeof(int) * s.size);
			SortSet(&s);
			status = AddWorkload(&a, &s, &sk);
			if (status != MRF_OK)
				goto done;
			if (sk)
			{
				status = MRF_EINVAL;
				goto done;
			}
		}

	a.m = p;
	status = BuildSet(&a, a.cl, a.m, &a.set);
	if (status != MRF_OK)
		goto done;
	a.logpot = MrfAlloc(env, sizeof(double) * (a.set->cells + 1));
	if (a.logpot == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	a.pdone = 1;
	a.ptotal = ProgressTotal(b.seeded - 1, rho, used, rho_measure + rho_select,
							 rounds + p + b.seeded, opt);
	status = Estimate(&a, opt->round_iterations, opt->round_stop_fraction, &opt->estimate,
					  opt->max_model_cells, NULL);
	if (status != MRF_OK)
		goto done;
	status = Infer(&a, opt->max_model_cells, &tree_cells);
	if (status != MRF_OK)
		goto done;

	/*
	 * 1b. the seeded schedule's seed: MST's tree over the workload's pairs,
	 * measured, as cliques; re-estimated (one more unit of progress)
	 */
	if (b.seeded)
	{
		double		seed_sigma2 = NAN;

		a.pdone = 1 + opt->round_iterations;
		status = Seed(&a, &b, opt, rng, ncl, &rep->seed_pairs, &rep->seed_selections,
					  &seed_sigma2);
		if (status != MRF_OK)
			goto done;
		/* charged once a selection ran, whatever it added (privacy.md 13) */
		if (rep->seed_selections > 0)
		{
			used = MrfAimSpend(MrfAimSpend(used, b.rho_seed_select), b.rho_seed_measure);
			rep->rho_seed = MrfAimSpend(b.rho_seed_select, b.rho_seed_measure);
			rep->sigma2_seed = seed_sigma2;
		}
		if (rep->seed_pairs > 0)
		{
			t0 = 1;
			a.ptotal = ProgressTotal(0, rho, used, rho_measure + rho_select, rounds + p + 1, opt);
			status = Estimate(&a, opt->round_iterations, opt->round_stop_fraction,
							  &opt->estimate, opt->max_model_cells, NULL);
			if (status != MRF_OK)
				goto done;
			status = Infer(&a, opt->max_model_cells, &tree_cells);
			if (status != MRF_OK)
				goto done;
		}
	}

	/* 2. the rounds */
	for (int t = 0;; t++)
	{
		int			last = 0;
		int64_t		limit;
		double		sigma;
		int			pick;
		int			covered;
		double		moved = 0.0;
		int64_t		at = 0;

		if (MrfAimIsLastRound(rho, used, rho_measure, rho_select) || t + 1 >= rounds + p)
		{
			if (MrfAimLastRates(rho, used, &rho_measure, &rho_select) != 0)
				break;
			last = 1;
		}
		/* the last round's parts sum to at most rho - used: the whole budget is spent */
		used = last ? rho : MrfAimSpend(MrfAimSpend(used, rho_measure), rho_select);
		if (MrfAimGaussianVariance(rho_measure, &num, &den) != 0)
		{
			status = MRF_EINVAL;
			goto done;
		}
		sigma = sqrt((double) num / (double) den);
		a.pdone = (int64_t) (t + t0 + 1) * (1 + opt->round_iterations);
		a.ptotal = last ? a.pdone + 1 + opt->estimate.iterations :
			ProgressTotal(t + t0, rho, used, rho_measure + rho_select, rounds + p + t0, opt);
		MrfPoll(env, a.pdone, a.ptotal);
		limit = (int64_t) fmin((double) opt->max_model_cells,
							   floor((double) opt->max_model_cells * fmin(1.0, used / rho)));

		/*
		 * the estimate's tables of every candidate, and which fit; each
		 * pointer freed is cleared, since a refusal below leaves through the
		 * cleanup at done
		 */
		MrfFree(env, score);
		MrfFree(env, weight);
		MrfFree(env, est);
		MrfFree(env, estoff);
		MrfFree(env, eligible);
		MrfFree(env, map);
		MrfFree(env, redo);
		score = weight = est = NULL;
		estoff = NULL;
		eligible = redo = NULL;
		map = NULL;
		a.hs.map = NULL;
		for (int i = 0; tsc != NULL && i < nthreads; i++)
		{
			MrfFree(env, tsc[i].map);
			tsc[i].map = NULL;
		}
		score = MrfAlloc(env, sizeof(double) * (a.ncand + 1));
		weight = MrfAlloc(env, sizeof(double) * (a.ncand + 1));
		estoff = MrfAlloc(env, sizeof(int64_t) * (a.ncand + 1));
		eligible = MrfAlloc(env, a.ncand + 1);
		if (!score || !weight || !estoff || !eligible)
		{
			status = MRF_ENOMEM;
			goto done;
		}
		largest = 1;
		for (int c = 0; c < a.m; c++)
			largest = a.set->offset[c + 1] - a.set->offset[c] > largest ?
				a.set->offset[c + 1] - a.set->offset[c] : largest;
		for (int c = 0; c < a.ncand; c++)
		{
			estoff[c] = at;
			at += a.cand[c].cells;
			largest = a.cand[c].cells > largest ? a.cand[c].cells : largest;
		}
		est = MrfAlloc(env, sizeof(double) * (at + 1));
		map = MrfAlloc(env, sizeof(int32_t) * (largest + 1));
		if (!est || !map)
		{
			status = MRF_ENOMEM;
			goto done;
		}
		a.hs.map = map;
		if (tsc != NULL)
		{
			redo = MrfAlloc(env, a.ncand + 1);
			if (redo == NULL)
			{
				status = MRF_ENOMEM;
				goto done;
			}
			for (int i = 0; i < nthreads; i++)
				if ((tsc[i].map = MrfAlloc(env, sizeof(int32_t) * (largest + 1))) == NULL)
				{
					status = MRF_ENOMEM;
					goto done;
				}
		}
		{
			Scoring		g;

			g.a = &a;
			g.opt = opt;
			g.limit = limit;
			g.sigma = sigma;
			g.score = score;
			g.weight = weight;
			g.est = est;
			g.estoff = estoff;
			g.eligible = eligible;
			g.redo = redo;
			g.sc = tsc;
			g.ncl = ncl;
			g.released_left = a.cmap != NULL ? ReleasedCellsLeft(&a, opt->max_model_cells) : 0;
			status = ScoreRound(&g, nthreads, a.pdone, a.ptotal, &rep->scored_on_host);
			if (status != MRF_OK)
				goto done;
		}
		if (opt->score_digest)
			rep->score_digest = ScoreDigest(rep->score_digest, score, weight, eligible, a.ncand);

		/* 3. select (rho_select), then measure (rho_measure) */
		if (t == 0)
			rep->epsilon_first = MrfAimSelectionEpsilon(rho_select);
		rep->epsilon_last = MrfAimSelectionEpsilon(rho_select);
		pick = MrfAimSelect(score, weight, eligible, a.ncand, rho_select, rng);
		if (pick < 0)
		{
			status = MRF_EINVAL;
			goto done;
		}
		if (t == 0)
			rep->sigma2_first = (double) num / (double) den;
		rep->sigma2_last = (double) num / (double) den;
		status = Measure(&a, &a.cand[pick], num, den, rng);
		if (status != MRF_OK)
			goto done;
		rep->rounds++;
		if (a.defaults && a.cand[pick].s.size >= 2)
		{
			status = Strengthen(&a, &a.cand[pick].s);
			if (status != MRF_OK)
				goto done;
		}

		/* 4. the model takes the pick as a clique, warm-started, and is re-estimated */
		a.pdone++;
		covered = Holder(a.cl, a.m, &a.cand[pick].s) >= 0;
		if (!covered)
		{
			status = AddCliques(&a, &a.cand[pick].s, 1, ncl, opt);
			if (status != MRF_OK)
				goto done;
		}
		status = Estimate(&a, last ? opt->estimate.iterations : opt->round_iterations,
						  last ? 0.0 : opt->round_stop_fraction, &opt->estimate,
						  opt->max_model_cells, last ? &rep->estimate : NULL);
		if (status != MRF_OK)
			goto done;
		status = Infer(&a, opt->max_model_cells, &tree_cells);
		if (status != MRF_OK)
			goto done;

		/* 5. annealing: did the measurement move its marginal by less than its noise? */
		{
			const Cand *cd = &a.cand[pick];
			int			h = Holder(a.cl, a.m, &cd->s);
			double	   *w = MrfAlloc(env, sizeof(double) * (cd->cells + 1));

			if (w == NULL)
			{
				status = MRF_ENOMEM;
				goto done;
			}
			MarginalOf(&a, &a.cl[h], a.mu + a.set->offset[h], &cd->s, map, w);
			for (int64_t x = 0; x < cd->cells; x++)
				moved += fabs(w[x] - est[estoff[pick] + x]);
			MrfFree(env, w);
			if (!last && moved <= EXPECTED_ABS_NOISE(sigma) * (double) cd->cells)
			{
				MrfAimAnneal(&rho_measure, &rho_select);
				rep->annealed++;
			}
		}
		if (last)
			break;
	}

	rep->rho_used = used;
	rep->steps = a.steps;
	rep->candidates = a.ncand;
	rep->triples = a.triples;
	rep->triples_skipped = a.triples_skipped;
	rep->model_cells = a.set->cells;
	rep->tree_cells = tree_cells;
	if (a.cmap != NULL)
	{
		/* back to the rows' alphabets */
		status = ExpandModel(&a, set_out, logpot_out);
		if (status != MRF_OK)
			goto done;
		rep->model_cells = (*set_out)->cells;
		goto done;
	}
	*set_out = a.set;
	*logpot_out = a.logpot;
	a.set = NULL;
	a.logpot = NULL;
done:
	AimFree(&a);
	MrfFree(env, score);
	MrfFree(env, weight);
	MrfFree(env, est);
	MrfFree(env, estoff);
	MrfFree(env, eligible);
	MrfFree(env, ncl);
	MrfFree(env, map);
	MrfFree(env, redo);
	for (int i = 0; tsc != NULL && i < nthreads; i++)
	{
		MrfFree(env, tsc[i].fstart);
		MrfFree(env, tsc[i].fvar);
		MrfFree(env, tsc[i].kidx);
		MrfFree(env, tsc[i].map);
		if (tsc[i].arena.base != NULL)
			MrfArenaFree(&tsc[i].arena, env);
	}
	MrfFree(env, tsc);
	return status;
}

/* See aim.h. */
MrfStatus
MrfAimLearn(const MrfCode *rows, int64_t n, int p, const int *card,
			const MrfAimOptions *opt, MrfRng *rng, const MrfEnv *env,
			MrfCliqueSet **set_out, double **logpot_out, MrfAimReport *rep)
{
	return AimLearn(rows, NULL, NULL, n, p, card, opt, rng, env, set_out, logpot_out, rep);
}

/* See aim.h. */
MrfStatus
MrfAimLearnTables(const MrfAimTables *t, const int64_t *counts, int64_t n, int p,
				  const int *card, const MrfAimOptions *opt, MrfRng *rng,
				  const MrfEnv *env, MrfCliqueSet **set_out, double **logpot_out,
				  MrfAimReport *rep)
{
	if (t == NULL || counts == NULL || t->hashsize < 1)
		return MRF_EINVAL;
	return AimLearn(NULL, t, counts, n, p, card, opt, rng, env, set_out, logpot_out, rep);
}

/* See aim.h. */
void
MrfAimTablesFree(const MrfEnv *env, MrfAimTables *t)
{
	MrfFree(env, t->start);
	MrfFree(env, t->vars);
	MrfFree(env, t->offset);
	MrfFree(env, t->hash);
	memset(t, 0, sizeof(*t));
}

/* Appends set s (sorted) to t unless present; -1 over the limits, -2 out of memory. */
static int
TablesAdd(MrfAimTables *t, const VarSet *s, const int *card, int64_t max_cells, int *cap,
		  int *capvars, const MrfEnv *env)
{
	int64_t		cells;
	uint64_t	h;

	if (TablesFind(t, s) >= 0)
		return 0;
	cells = SetCells(card, s, max_cells);
	if (cells < 0 || t->offset[t->nsets] + cells > max_cells)
		return -1;
	if (t->nsets + 1 >= *cap || t->start[t->nsets] + s->size > *capvars)
	{
		int			nc = 2 * *cap;
		int			nv = 2 * (*capvars + s->size);
		int		   *start = MrfAllocUninit(env, sizeof(int) * (nc + 1));
		int64_t    *offset = MrfAllocUninit(env, sizeof(int64_t) * (nc + 1));
		int		   *vars = MrfAllocUninit(env, sizeof(int) * nv);

		if (start == NULL || offset == NULL || vars == NULL)
		{
			MrfFree(env, start);
			MrfFree(env, offset);
			MrfFree(env, vars);
			return -2;
		}
		memcpy(start, t->start, sizeof(int) * (t->nsets + 1));
		memcpy(offset, t->offset, sizeof(int64_t) * (t->nsets + 1));
		memcpy(vars, t->vars, sizeof(int) * t->start[t->nsets]);
		MrfFree(env, t->start);
		MrfFree(env, t->offset);
		MrfFree(env, t->vars);
		t->start = start;
		t->offset = offset;
		t->vars = vars;
		*cap = nc;
		*capvars = nv;
	}
	if (2 * (t->nsets + 1) > t->hashsize)
	{
		int			hs = 2 * t->hashsize;
		int32_t    *hash = MrfAllocUninit(env, sizeof(int32_t) * hs);

		if (hash == NULL)
			return -2;
		for (int i = 0; i < hs; i++)
			hash[i] = -1;
		MrfFree(env, t->hash);
		t->hash = hash;
		t->hashsize = hs;
		for (int i = 0; i < t->nsets; i++)
		{
			VarSet		v;

			v.size = t->start[i + 1] - t->start[i];
			memcpy(v.vars, t->vars + t->start[i], sizeof(int) * v.size);
			h = SetHash(&v) & (uint64_t) (hs - 1);
			while (hash[h] >= 0)
				h = (h + 1) & (uint64_t) (hs - 1);
			hash[h] = i;
		}
	}
	memcpy(t->vars + t->start[t->nsets], s->vars, sizeof(int) * s->size);
	t->start[t->nsets + 1] = t->start[t->nsets] + s->size;
	t->offset[t->nsets + 1] = t->offset[t->nsets] + cells;
	h = SetHash(s) & (uint64_t) (t->hashsize - 1);
	while (t->hash[h] >= 0)
		h = (h + 1) & (uint64_t) (t->hashsize - 1);
	t->hash[h] = t->nsets;
	t->nsets++;
	return 0;
}

/* See aim.h. */
int64_t
MrfAimTablesPlan(int p, const int *card, int nworkload, const int *wstart, const int *wvar,
				 int64_t max_sets, int64_t max_cells, const MrfEnv *env, MrfAimTables *out)
{
	MrfAimTables t;
	int			cap = 64;
	int			capvars = 256;
	int			rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	t.start = MrfAllocUninit(env, sizeof(int) * (cap + 1));
	t.offset = MrfAllocUninit(env, sizeof(int64_t) * (cap + 1));
	t.vars = MrfAllocUninit(env, sizeof(int) * capvars);
	t.hashsize = 128;
	t.hash = MrfAllocUninit(env, sizeof(int32_t) * t.hashsize);
	if (t.start == NULL || t.offset == NULL || t.vars == NULL || t.hash == NULL)
	{
		MrfAimTablesFree(env, &t);
		return -2;
	}
	t.start[0] = 0;
	t.offset[0] = 0;
	for (int i = 0; i < t.hashsize; i++)
		t.hash[i] = -1;
	for (int i = 0; i < p && rc == 0; i++)
	{
		VarSet		s = {1, {i}};

		rc = TablesAdd(&t, &s, card, max_cells, &cap, &capvars, env);
	}
	if (nworkload == 0)
	{
		/* every pair, then every triple (sorted) */
		for (int i = 0; i < p && rc == 0; i++)
			for (int j = i + 1; j < p && rc == 0; j++)
			{
				VarSet		s = {2, {i, j}};

				rc = t.nsets >= max_sets ? -1 : TablesAdd(&t, &s, card, max_cells, &cap, &capvars, env);
			}
		for (int i = 0; i < p && rc == 0; i++)
			for (int j = i + 1; j < p && rc == 0; j++)
				for (int l = j + 1; l < p && rc == 0; l++)
				{
					VarSet		s = {3, {i, j, l}};

					rc = t.nsets >= max_sets ? -1 : TablesAdd(&t, &s, card, max_cells, &cap, &capvars, env);
				}
	}
	else
		for (int w = 0; w < nworkload && rc == 0; w++)
		{
			VarSet		m;
			int			full;

			m.size = wstart[w + 1] - wstart[w];
			memcpy(m.vars, wvar + wstart[w], sizeof(int) * m.size);
			SortSet(&m);
			full = (1 << m.size) - 1;
			/* as AddWorkload: the marginal first, then its subsets */
			for (int mask = full; mask >= 1 && rc == 0; mask--)
			{
				VarSet		sub;

				sub.size = 0;
				for (int i = 0; i < m.size; i++)
					if (mask & (1 << i))
						sub.vars[sub.size++] = m.vars[i];
				if (sub.size >= 2)
					rc = t.nsets >= max_sets ? -1 :
						TablesAdd(&t, &sub, card, max_cells, &cap, &capvars, env);
			}
		}
	if (rc != 0)
	{
		MrfAimTablesFree(env, &t);
		return rc;
	}
	*out = t;
	return t.offset[t.nsets];
}

/* See aim.h. */
void
MrfAimTablesCount(const MrfAimTables *t, const MrfCode *rows, int64_t n, int p,
				  const int *card, int64_t *counts)
{
	for (int s = 0; s < t->nsets; s++)
	{
		const int  *vars = t->vars + t->start[s];
		int			size = t->start[s + 1] - t->start[s];
		int64_t    *x = counts + t->offset[s];
		int64_t		stride[MAXV];
		int64_t		st = 1;

		for (int i = size - 1; i >= 0; i--)
		{
			stride[i] = st;
			st *= card[vars[i]];
		}
		/* one table at a time over the batch: its cells stay in cache */
		if (size == 1)
			for (int64_t r = 0; r < n; r++)
				x[rows[r * p + vars[0]]]++;
		else if (size == 2)
			for (int64_t r = 0; r < n; r++)
			{
				const MrfCode *z = rows + r * p;

				x[stride[0] * z[vars[0]] + z[vars[1]]]++;
			}
		else
			for (int64_t r = 0; r < n; r++)
			{
				const MrfCode *z = rows + r * p;
				int64_t		idx = 0;

				for (int i = 0; i < size; i++)
					idx += stride[i] * z[vars[i]];
				x[idx]++;
			}
	}
}
