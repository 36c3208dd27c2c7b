/*
 * bp.c - junction trees, exact belief propagation on them, and loopy belief
 * propagation on the factor graph of a clique model.
 *
 * Everything runs in the log domain: potentials are log-potentials, messages
 * are log-messages, and sums over cells are log-sum-exp with the maximum of
 * each bucket subtracted first, so strong potentials (Dirichlet draws with
 * cells near 0, psi near -10) neither underflow nor overflow.
 *
 * Exact inference is the two-pass (Shafer-Shenoy with division, i.e.
 * HUGIN-style) algorithm on a junction tree: collect towards the root, then
 * distribute, dividing out the message a node sent upwards.  A junction tree
 * is a maximum-weight spanning tree of the clique graph (weight |C n C'|),
 * which has the running intersection property iff its weight is
 * sum_v (#clusters containing v - 1) (Jensen and Jensen, UAI 1994): for each
 * v the tree edges whose separator holds v form a forest on the clusters
 * holding v, with at most #-1 edges, and exactly that many iff it is
 * connected.  Disconnected parts join by empty separators (one cell).
 */
#include <math.h>
#include <string.h>

#include "bp.h"

/* Largest p for which a triangulation is attempted (the adjacency is p^2 bytes). */
#define BP_MAX_TRIANGULATE_P 4096

struct MrfBp
{
	const MrfCliqueSet *set;
	const MrfEnv *env;
	MrfBpOptions opt;
	int			exact;
	int			decomposable;

	/* junction tree: clusters, their tables, and separators with the parent */
	int			nc;
	int		   *cstart;			/* nc + 1 */
	int		   *cvar;
	int64_t    *coff;			/* nc + 1 cell offsets */
	int		   *parent;			/* nc, -1 at roots */
	int		   *order;			/* nc, parents first */
	int64_t    *soff;			/* nc + 1: separator table of u with its parent */
	int32_t    *cmap;			/* cluster cell -> its separator's cell */
	int64_t    *pmoff;			/* nc + 1 */
	int32_t    *pmap;			/* parent's cell -> u's separator cell */
	int		   *host;			/* m: cluster holding clique c */
	int64_t    *hmoff;			/* m + 1 */
	int32_t    *hmap;			/* host's cell -> clique c's cell */
	double	   *beta;			/* collected tables */
	double	   *belief;			/* final log-beliefs */
	double	   *up;				/* upward messages, by separator */
	double	   *down;			/* downward messages */
	double	   *scratch;		/* max over one bucket set */
	double	   *scratch2;

	/* loopy BP on the factor graph */
	double	   *f2v;			/* start[c] * k + j * k + a */
	double	   *v2f;
	double	   *vsum;			/* p * k */
	double	   *tab;			/* one clique's scores */
	double	   *lse;			/* per position and value */
	double	   *lsemax;
	double	   *msg;			/* k: one new message */

	int			last_iterations;
	double		last_change;
	int			last_converged;
	size_t		bytes;

	/*
	 * Set queries (MrfBpSetMarginal) on the last exact calibration: each
	 * cluster's table as a conditional given its separator with the parent
	 * (the root's: its marginal) and as a marginal, in probabilities; the
	 * first cluster holding each variable.  Built at the first query after a
	 * calibration.
	 */
	int			calibrated;		/* beliefs hold the last exact calibration */
	int			query_ready;	/* cond, margp match them */
	double	   *cond;			/* coff[nc] */
	double	   *margp;			/* coff[nc] */
	int		   *vhost;			/* p: a cluster holding v, or -1 */
};

/* k^size, or -1 when it exceeds limit. */
int64_t
MrfTableCells(int k, int size, int64_t limit)
{
	int64_t		cells = 1;
	int			i;

	if (k < 1 || size < 0)
		return -1;
	for (i = 0; i < size; i++)
	{
		if (cells > limit / k)
			return -1;
		cells *= k;
	}
	return cells > limit ? -1 : cells;
}

/* prod card[vars[i]], or -1 when it exceeds limit. */
int64_t
MrfVarsCells(const int *card, int size, const int *vars, int64_t limit)
{
	int64_t		cells = 1;
	int			i;

	if (size < 0)
		return -1;
	for (i = 0; i < size; i++)
	{
		int			k = card[vars[i]];

		if (k < 1 || cells > limit / k)
			return -1;
		cells *= k;
	}
	return cells > limit ? -1 : cells;
}

/*
 * Odometer over the cells of the larger table: the last variable is the
 * fastest digit (each in its own base card[v]), and the marginal index
 * moves by that variable's stride in the smaller table (0 if it is summed
 * out).
 */
void
MrfSubsetIndexMap(const int *card, int nsup, const int *sup_vars, int nsub,
				  const int *sub_vars, int32_t *map)
{
	int64_t		stride[64];
	int			digit[64];
	int64_t		cells = 1;
	int64_t		idx = 0;
	int64_t		x;
	int			i;
	int			j;

	/* strides of the sub-table, by position in sup */
	j = nsub - 1;
	{
		int64_t		s = 1;

		for (i = nsup - 1; i >= 0; i--)
		{
			if (j >= 0 && sub_vars[j] == sup_vars[i])
			{
				stride[i] = s;
				s *= card[sup_vars[i]];
				j--;
			}
			else
				stride[i] = 0;
		}
	}
	for (i = 0; i < nsup; i++)
	{
		digit[i] = 0;
		cells *= card[sup_vars[i]];
	}
	for (x = 0; x < cells; x++)
	{
		map[x] = (int32_t) idx;
		/* increment the odometer */
		for (i = nsup - 1; i >= 0; i--)
		{
			if (++digit[i] < card[sup_vars[i]])
			{
				idx += stride[i];
				break;
			}
			digit[i] = 0;
			idx -= stride[i] * (card[sup_vars[i]] - 1);
		}
	}
}

/* Size of the intersection of two sorted lists. */
static int
IntersectSize(const int *a, int na, const int *b, int nb)
{
	int			i = 0;
	int			j = 0;
	int			n = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			n++;
			i++;
			j++;
		}
	}
	return n;
}

/* Whether sorted list a is a subset of sorted list b. */
static int
IsSubset(const int *a, int na, const int *b, int nb)
{
	return IntersectSize(a, na, b, nb) == na;
}

/* Writes the sorted intersection of a and b to out; returns its size. */
static int
Intersect(const int *a, int na, const int *b, int nb, int *out)
{
	int			i = 0;
	int			j = 0;
	int			n = 0;

	while (i < na && j < nb)
	{
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
		{
			out[n++] = a[i];
			i++;
			j++;
		}
	}
	return n;
}

/*
 * Prim's algorithm for a maximum-weight spanning tree of the complete graph
 * on the sets (weight = intersection size), rooted at set 0; ties go to the
 * lowest index so that the tree is deterministic.  key and from are scratch
 * (n entries each).  Returns the total weight.
 */
static int64_t
MaxSpanningTree(int n, const int *start, const int *var, int *parent,
				int *order, int *key, int *from)
{
	int64_t		total = 0;
	int			added;
	int			i;

	for (i = 0; i < n; i++)
	{
		key[i] = -1;
		from[i] = -1;
	}
	key[0] = 0;
	for (added = 0; added < n; added++)
	{
		int			best = -1;

		for (i = 0; i < n; i++)
			if (key[i] != -2 && (best < 0 || key[i] > key[best]))
				best = i;
		order[added] = best;
		parent[best] = from[best];
		if (from[best] >= 0)
			total += key[best];
		key[best] = -2;			/* in the tree */
		for (i = 0; i < n; i++)
		{
			int			w;

			if (key[i] == -2)
				continue;
			w = IntersectSize(var + start[best], start[best + 1] - start[best],
							  var + start[i], start[i + 1] - start[i]);
			if (w > key[i])
			{
				key[i] = w;
				from[i] = best;
			}
		}
	}
	return total;
}

/* sum over variables of (#sets holding it - 1), over variables held at all. */
static int64_t
RunningIntersectionWeight(int p, int n, const int *start, const int *var,
						  int *count)
{
	int64_t		w = 0;
	int			i;

	memset(count, 0, sizeof(int) * (size_t) p);
	for (i = 0; i < start[n]; i++)
		count[var[i]]++;
	for (i = 0; i < p; i++)
		if (count[i] > 0)
			w += count[i] - 1;
	return w;
}

/* Junction tree of the cliques themselves, if they have one. */
MrfStatus
MrfCliquesJunctionTree(const MrfCliqueSet *set, const MrfEnv *env,
					   int *decomposable, int *parent, int *order)
{
	int			m = set->m;
	int		   *scratch;
	int64_t		tree;
	int64_t		need;

	scratch = MrfAlloc(env, sizeof(int) * ((size_t) 4 * m + (size_t) set->p));
	if (scratch == NULL)
		return MRF_ENOMEM;
	tree = MaxSpanningTree(m, set->start, set->var, scratch, scratch + m,
						   scratch + 2 * m, scratch + 3 * m);
	need = RunningIntersectionWeight(set->p, m, set->start, set->var,
									 scratch + 4 * m);
	*decomposable = tree == need;
	if (parent != NULL)
		memcpy(parent, scratch, sizeof(int) * (size_t) m);
	if (order != NULL)
		memcpy(order, scratch + m, sizeof(int) * (size_t) m);
	MrfFree(env, scratch);
	return MRF_OK;
}

/*
 * Greedy min-fill elimination (ties: fewest neighbours, then lowest index) of
 * the variables that occur in some clique; the clusters are each eliminated
 * variable with its live neighbours, the non-maximal ones dropped.  Returns
 * MRF_OK with *fits = 0 when the clusters' tables together (the
 * non-maximal ones included) would exceed limit cells; else *total_out (may
 * be NULL) is that sum and *fill_out (may be NULL) the edges it added.  On
 * success the caller owns *cstart_out and *cvar_out (both may be NULL: then
 * nothing is kept).
 */
static MrfStatus
Triangulate(const MrfCliqueSet *set, int64_t limit, const MrfEnv *env,
			int *fits, int *nc_out, int **cstart_out, int **cvar_out,
			int64_t *total_out, int64_t *fill_out)
{
	int			p = set->p;
	uint64_t   *adj = NULL;
	uint64_t   *alive = NULL;
	uint64_t   *dirty;
	uint64_t   *nb;
	int64_t    *fillc = NULL;
	int		   *degc = NULL;
	int			words;
	int			w;
	int		   *cstart = NULL;
	int		   *cvar = NULL;
	int		   *keep = NULL;
	int			ncovered = 0;
	int			nc = 0;
	int64_t		total = 0;
	int64_t		filled = 0;
	int64_t		nvars = 0;
	MrfStatus	status = MRF_ENOMEM;
	int			c;
	int			i;
	int			j;
	int			step;

	*fits = 0;
	if (p > BP_MAX_TRIANGULATE_P)
		return MRF_OK;
	words = (p + 63) / 64;
	adj = MrfAlloc(env, sizeof(uint64_t) * (size_t) p * (size_t) words);
	alive = MrfAlloc(env, sizeof(uint64_t) * (size_t) words * 3);
	fillc = MrfAlloc(env, sizeof(int64_t) * (size_t) p);
	degc = MrfAlloc(env, sizeof(int) * (size_t) p);
	cstart = MrfAlloc(env, sizeof(int) * ((size_t) p + 1));
	/* p clusters of at most p variables each, bounded below by the limit */
	cvar = MrfAllocUninit(env, sizeof(int) * (size_t) p * (size_t) p);
	keep = MrfAlloc(env, sizeof(int) * (size_t) p);
	if (adj == NULL || alive == NULL || fillc == NULL || degc == NULL ||
		cstart == NULL || cvar == NULL || keep == NULL)
		goto done;
	dirty = alive + words;
	nb = alive + 2 * words;

	/*
	 * Adjacency as bit rows: a vertex's fill is the pairs of its live
	 * neighbours that are not adjacent, d (d - 1) / 2 less the edges among
	 * them, which popcounts of the rows count.  A vertex's fill and degree
	 * change only when it or a neighbour is in the cluster just made (its
	 * neighbourhood lost the eliminated vertex or gained an edge), so only
	 * those are counted again: the same order as counting every vertex at
	 * every step, ties included.
	 */
	for (c = 0; c < set->m; c++)
		for (i = set->start[c]; i < set->start[c + 1]; i++)
		{
			int			v = set->var[i];

			alive[v / 64] |= (uint64_t) 1 << (v % 64);
			for (j = set->start[c]; j < set->start[c + 1]; j++)
				if (i != j)
					adj[(size_t) v * words + set->var[j] / 64] |=
						(uint64_t) 1 << (set->var[j] % 64);
		}
	for (w = 0; w < words; w++)
	{
		ncovered += __builtin_popcountll(alive[w]);
		dirty[w] = alive[w];
	}

	for (step = 0; step < ncovered; step++)
	{
		int			best = -1;
		int64_t		best_fill = 0;
		int			best_deg = 0;
		int			deg = 0;
		int64_t		cells;

		for (i = 0; i < p; i++)
		{
			const uint64_t *row = adj + (size_t) i * words;
			int64_t		inner = 0;
			int			d = 0;

			if (!(alive[i / 64] >> (i % 64) & 1))
				continue;
			if (dirty[i / 64] >> (i % 64) & 1)
			{
				for (w = 0; w < words; w++)
				{
					nb[w] = row[w] & alive[w];
					d += __builtin_popcountll(nb[w]);
				}
				for (w = 0; w < words; w++)
				{
					uint64_t	bits = nb[w];

					while (bits)
					{
						int			a = w * 64 + __builtin_ctzll(bits);
						const uint64_t *ra = adj + (size_t) a * words;

						bits &= bits - 1;
						for (int x = 0; x < words; x++)
							inner += __builtin_popcountll(ra[x] & nb[x]);
					}
				}
				degc[i] = d;
				fillc[i] = (int64_t) d * (d - 1) / 2 - inner / 2;
			}
			if (best < 0 || fillc[i] < best_fill ||
				(fillc[i] == best_fill && degc[i] < best_deg))
			{
				best = i;
				best_fill = fillc[i];
				best_deg = degc[i];
			}
		}

		/* the cluster: best and its live neighbours, in increasing order */
		cstart[nc] = (int) nvars;
		for (w = 0; w < words; w++)
		{
			nb[w] = adj[(size_t) best * words + w] & alive[w];
			if (w == best / 64)
				nb[w] |= (uint64_t) 1 << (best % 64);
			dirty[w] = nb[w];
		}
		for (i = 0; i < p; i++)
			if (nb[i / 64] >> (i % 64) & 1)
			{
				cvar[nvars++] = i;
				deg++;
			}
		cells = MrfVarsCells(set->card, deg, cvar + cstart[nc], limit);
		if (cells < 0 || total + cells > limit)
		{
			status = MRF_OK;	/* *fits stays 0 */
			goto done;
		}
		total += cells;
		filled += best_fill;
		nc++;
		cstart[nc] = (int) nvars;
		for (i = cstart[nc - 1]; i < cstart[nc]; i++)
		{
			uint64_t   *row = adj + (size_t) cvar[i] * words;

			for (w = 0; w < words; w++)
			{
				row[w] |= nb[w];
				dirty[w] |= row[w];
			}
			row[cvar[i] / 64] &= ~((uint64_t) 1 << (cvar[i] % 64));
		}
		alive[best / 64] &= ~((uint64_t) 1 << (best % 64));
	}

	/* keep maximal clusters; of equal ones the first (when they are kept) */
	if (cstart_out != NULL && cvar_out != NULL)
	{
		int			nk = 0;
		int			nv = 0;

		for (c = 0; c < nc; c++)
		{
			int			sub = 0;

			for (j = 0; j < nc && !sub; j++)
			{
				int			nj = cstart[j + 1] - cstart[j];
				int			ncl = cstart[c + 1] - cstart[c];

				if (j == c)
					continue;
				if (IsSubset(cvar + cstart[c], ncl, cvar + cstart[j], nj) &&
					(ncl < nj || j < c))
					sub = 1;
			}
			keep[c] = !sub;
		}
		/* compact in place: kept clusters only move towards the front */
		for (c = 0; c < nc; c++)
		{
			int			s = cstart[c];
			int			e = cstart[c + 1];

			if (!keep[c])
				continue;
			cstart[nk] = nv;
			for (i = s; i < e; i++)
				cvar[nv++] = cvar[i];
			nk++;
		}
		cstart[nk] = nv;
		nc = nk;
	}
	*fits = 1;
	if (total_out != NULL)
		*total_out = total;
	if (fill_out != NULL)
		*fill_out = filled;
	if (nc_out != NULL)
		*nc_out = nc;
	if (cstart_out != NULL && cvar_out != NULL)
	{
		*cstart_out = cstart;
		*cvar_out = cvar;
		cstart = NULL;
		cvar = NULL;
	}
	status = MRF_OK;

done:
	MrfFree(env, adj);
	MrfFree(env, alive);
	MrfFree(env, fillc);
	MrfFree(env, degc);
	MrfFree(env, cstart);
	MrfFree(env, cvar);
	MrfFree(env, keep);
	return status;
}

/* Allocation that counts towards the engine's reported size. */
static void *
BpAlloc(MrfBp *bp, size_t bytes)
{
	bp->bytes += bytes;
	return MrfAlloc(bp->env, bytes);
}

/* Lays out the junction tree's tables, separators and index maps. */
static MrfStatus
BuildJunctionTree(MrfBp *bp)
{
	const MrfCliqueSet *set = bp->set;
	int			nc = bp->nc;
	const int  *card = set->card;
	int		   *scratch;
	int		   *sepvars;
	int64_t		maxsep = 1;
	int64_t		maxcl = 1;
	int64_t		work = 0;		/* the maps' cells since the last poll */
	int			u;
	int			c;

	scratch = MrfAlloc(bp->env, sizeof(int) * ((size_t) 2 * nc + (size_t) set->p));
	bp->parent = BpAlloc(bp, sizeof(int) * (size_t) nc);
	bp->order = BpAlloc(bp, sizeof(int) * (size_t) nc);
	bp->coff = BpAlloc(bp, sizeof(int64_t) * ((size_t) nc + 1));
	bp->soff = BpAlloc(bp, sizeof(int64_t) * ((size_t) nc + 1));
	bp->pmoff = BpAlloc(bp, sizeof(int64_t) * ((size_t) nc + 1));
	bp->host = BpAlloc(bp, sizeof(int) * (size_t) set->m);
	bp->hmoff = BpAlloc(bp, sizeof(int64_t) * ((size_t) set->m + 1));
	if (scratch == NULL || bp->parent == NULL || bp->order == NULL ||
		bp->coff == NULL || bp->soff == NULL || bp->pmoff == NULL ||
		bp->host == NULL || bp->hmoff == NULL)
	{
		MrfFree(bp->env, scratch);
		return MRF_ENOMEM;
	}
	sepvars = scratch + 2 * nc;
	MaxSpanningTree(nc, bp->cstart, bp->cvar, bp->parent, bp->order,
					scratch, scratch + nc);

	/* offsets: cluster tables, separators, parent-side maps */
	bp->coff[0] = bp->soff[0] = bp->pmoff[0] = 0;
	for (u = 0; u < nc; u++)
	{
		int			nu = bp->cstart[u + 1] - bp->cstart[u];
		int64_t		cu = MrfVarsCells(card, nu, bp->cvar + bp->cstart[u], INT32_MAX);
		int64_t		cs = 1;
		int64_t		cp = 0;

		if (bp->parent[u] >= 0)
		{
			int			pu = bp->parent[u];
			int			ns = Intersect(bp->cvar + bp->cstart[u], nu,
									   bp->cvar + bp->cstart[pu],
									   bp->cstart[pu + 1] - bp->cstart[pu],
									   sepvars);

			cs = MrfVarsCells(card, ns, sepvars, INT32_MAX);
			cp = MrfVarsCells(card, bp->cstart[pu + 1] - bp->cstart[pu],
							  bp->cvar + bp->cstart[pu], INT32_MAX);
		}
		bp->coff[u + 1] = bp->coff[u] + cu;
		bp->soff[u + 1] = bp->soff[u] + cs;
		bp->pmoff[u + 1] = bp->pmoff[u] + cp;
		maxsep = cs > maxsep ? cs : maxsep;
		maxcl = cu > maxcl ? cu : maxcl;
	}

	/* the host of each clique: the first cluster holding it */
	bp->hmoff[0] = 0;
	for (c = 0; c < set->m; c++)
	{
		int			nclq = set->start[c + 1] - set->start[c];

		bp->host[c] = -1;
		for (u = 0; u < nc && bp->host[c] < 0; u++)
			if (IsSubset(set->var + set->start[c], nclq, bp->cvar + bp->cstart[u],
						 bp->cstart[u + 1] - bp->cstart[u]))
				bp->host[c] = u;
		if (bp->host[c] < 0)
		{
			MrfFree(bp->env, scratch);
			return MRF_EINVAL;	/* cannot happen for a valid triangulation */
		}
		u = bp->host[c];
		bp->hmoff[c + 1] = bp->hmoff[c] + (bp->coff[u + 1] - bp->coff[u]);
		maxcl = set->offset[c + 1] - set->offset[c] > maxcl ?
			set->offset[c + 1] - set->offset[c] : maxcl;
	}

	bp->cmap = BpAlloc(bp, sizeof(int32_t) * (size_t) bp->coff[nc]);
	bp->pmap = BpAlloc(bp, sizeof(int32_t) * (size_t) (bp->pmoff[nc] > 0 ? bp->pmoff[nc] : 1));
	bp->hmap = BpAlloc(bp, sizeof(int32_t) * (size_t) bp->hmoff[set->m]);
	bp->beta = BpAlloc(bp, sizeof(double) * (size_t) bp->coff[nc]);
	bp->belief = BpAlloc(bp, sizeof(double) * (size_t) bp->coff[nc]);
	bp->up = BpAlloc(bp, sizeof(double) * (size_t) bp->soff[nc]);
	bp->down = BpAlloc(bp, sizeof(double) * (size_t) bp->soff[nc]);
	bp->scratch = BpAlloc(bp, sizeof(double) * (size_t) maxcl);
	bp->scratch2 = BpAlloc(bp, sizeof(double) * (size_t) maxcl);
	if (bp->cmap == NULL || bp->pmap == NULL || bp->hmap == NULL ||
		bp->beta == NULL || bp->belief == NULL || bp->up == NULL ||
		bp->down == NULL || bp->scratch == NULL || bp->scratch2 == NULL)
	{
		MrfFree(bp->env, scratch);
		return MRF_ENOMEM;
	}

	for (u = 0; u < nc; u++)
	{
		const int  *vu = bp->cvar + bp->cstart[u];
		int			nu = bp->cstart[u + 1] - bp->cstart[u];
		int			pu = bp->parent[u];

		MrfPollWork(bp->env, &work, bp->coff[u + 1] - bp->coff[u] + bp->pmoff[u + 1] - bp->pmoff[u]);
		if (pu < 0)
		{
			/* the root's "separator" is the empty set: one cell */
			MrfSubsetIndexMap(card, nu, vu, 0, NULL, bp->cmap + bp->coff[u]);
			continue;
		}
		{
			const int  *vp = bp->cvar + bp->cstart[pu];
			int			np = bp->cstart[pu + 1] - bp->cstart[pu];
			int			ns = Intersect(vu, nu, vp, np, sepvars);

			MrfSubsetIndexMap(card, nu, vu, ns, sepvars, bp->cmap + bp->coff[u]);
			MrfSubsetIndexMap(card, np, vp, ns, sepvars, bp->pmap + bp->pmoff[u]);
		}
	}
	for (c = 0; c < set->m; c++)
	{
		u = bp->host[c];
		MrfPollWork(bp->env, &work, bp->hmoff[c + 1] - bp->hmoff[c]);
		MrfSubsetIndexMap(card, bp->cstart[u + 1] - bp->cstart[u],
						  bp->cvar + bp->cstart[u],
						  set->start[c + 1] - set->start[c],
						  set->var + set->start[c], bp->hmap + bp->hmoff[c]);
	}
	MrfFree(bp->env, scratch);
	return MRF_OK;
}

/*
 * Message arrays of loopy BP: one k-vector per (clique, position), k the
 * largest alphabet; a slot of variable v uses its first card[v] entries.
 */
static MrfStatus
BuildLoopy(MrfBp *bp)
{
	const MrfCliqueSet *set = bp->set;
	int64_t		slots = (int64_t) set->start[set->m] * set->k;
	int64_t		maxcl = 1;
	int			c;

	for (c = 0; c < set->m; c++)
		if (set->offset[c + 1] - set->offset[c] > maxcl)
			maxcl = set->offset[c + 1] - set->offset[c];
	bp->f2v = BpAlloc(bp, sizeof(double) * (size_t) slots);
	bp->v2f = BpAlloc(bp, sizeof(double) * (size_t) slots);
	bp->vsum = BpAlloc(bp, sizeof(double) * (size_t) set->p * (size_t) set->k);
	bp->tab = BpAlloc(bp, sizeof(double) * (size_t) maxcl);
	bp->lse = BpAlloc(bp, sizeof(double) * (size_t) slots);
	bp->lsemax = BpAlloc(bp, sizeof(double) * (size_t) slots);
	bp->msg = BpAlloc(bp, sizeof(double) * (size_t) set->k);
	if (bp->f2v == NULL || bp->v2f == NULL || bp->vsum == NULL ||
		bp->tab == NULL || bp->lse == NULL || bp->lsemax == NULL || bp->msg == NULL)
		return MRF_ENOMEM;
	return MRF_OK;
}

/* Resolves defaults, picks exact or loopy inference, and lays out memory. */
MrfStatus
MrfBpBuild(const MrfCliqueSet *set, const MrfBpOptions *opt,
		   const MrfEnv *env, MrfBp **out)
{
	MrfBp	   *bp;
	MrfStatus	status;
	int			c;

	*out = NULL;
	if (set == NULL || set->m < 1 || set->k < 2)
		return MRF_EINVAL;
	bp = MrfAlloc(env, sizeof(MrfBp));
	if (bp == NULL)
		return MRF_ENOMEM;
	bp->set = set;
	bp->env = env;
	bp->bytes = sizeof(MrfBp);
	if (opt != NULL)
		bp->opt = *opt;
	if (bp->opt.max_exact_cells <= 0)
		bp->opt.max_exact_cells = MRF_BP_DEFAULT_MAX_EXACT_CELLS;
	if (bp->opt.max_iterations <= 0)
		bp->opt.max_iterations = MRF_BP_DEFAULT_ITERATIONS;
	if (!(bp->opt.tolerance > 0))
		bp->opt.tolerance = MRF_BP_DEFAULT_TOLERANCE;
	if (!(bp->opt.damping > 0) || bp->opt.damping > 1)
		bp->opt.damping = MRF_BP_DEFAULT_DAMPING;

	status = MrfCliquesJunctionTree(set, env, &bp->decomposable, NULL, NULL);
	if (status != MRF_OK)
		goto fail;

	if (bp->opt.mode != MRF_INFER_LOOPY)
	{
		int64_t		total = set->cells;

		if (bp->decomposable && total <= bp->opt.max_exact_cells)
		{
			/* the cliques are the clusters */
			bp->nc = set->m;
			bp->cstart = BpAlloc(bp, sizeof(int) * ((size_t) set->m + 1));
			bp->cvar = BpAlloc(bp, sizeof(int) * (size_t) (set->start[set->m] > 0 ? set->start[set->m] : 1));
			if (bp->cstart == NULL || bp->cvar == NULL)
			{
				status = MRF_ENOMEM;
				goto fail;
			}
			memcpy(bp->cstart, set->start, sizeof(int) * ((size_t) set->m + 1));
			memcpy(bp->cvar, set->var, sizeof(int) * (size_t) set->start[set->m]);
			bp->exact = 1;
		}
		else
		{
			int			fits = 0;

			status = Triangulate(set, bp->opt.max_exact_cells, env, &fits,
								 &bp->nc, &bp->cstart, &bp->cvar, NULL, NULL);
			if (status != MRF_OK)
				goto fail;
			bp->exact = fits;
			if (fits)
				bp->bytes += sizeof(int) * ((size_t) bp->set->p * (bp->set->p + 1));
		}
		if (!bp->exact && bp->opt.mode == MRF_INFER_EXACT)
		{
			status = MRF_EINVAL;
			goto fail;
		}
	}
	if (bp->exact)
		status = BuildJunctionTree(bp);
	else
		status = BuildLoopy(bp);
	if (status != MRF_OK)
		goto fail;
	for (c = 0; c < set->m; c++)
		if (set->start[c + 1] - set->start[c] > 64)
		{
			status = MRF_EINVAL;
			goto fail;
		}
	*out = bp;
	return MRF_OK;

fail:
	MrfBpFree(bp);
	return status;
}

/* See bp.h. */
MrfStatus
MrfBpTriangulatedCells(const MrfCliqueSet *set, int64_t limit, const MrfEnv *env,
					   int64_t *cells, int64_t *fill)
{
	MrfStatus	status;
	int			fits = 0;
	int64_t		total = -1;

	*cells = -1;
	*fill = -1;
	if (set == NULL || set->m < 1 || set->k < 2)
		return MRF_EINVAL;
	status = Triangulate(set, limit, env, &fits, NULL, NULL, NULL, &total, fill);
	if (status == MRF_OK && fits)
		*cells = total;
	else
		*fill = -1;
	return status;
}

/*
 * out[b] = log sum_{x : map[x] = b} exp(vals[x]) for b < nb (map NULL: one
 * bucket), subtracting each bucket's maximum first.
 */
static void
LogSumBuckets(const double *vals, const int32_t *map, int64_t n, int64_t nb,
			  double *out, double *maxbuf)
{
	int64_t		x;
	int64_t		b;

	for (b = 0; b < nb; b++)
	{
		maxbuf[b] = -INFINITY;
		out[b] = 0.0;
	}
	for (x = 0; x < n; x++)
	{
		b = map != NULL ? map[x] : 0;
		if (vals[x] > maxbuf[b])
			maxbuf[b] = vals[x];
	}
	for (x = 0; x < n; x++)
	{
		b = map != NULL ? map[x] : 0;
		out[b] += exp(vals[x] - maxbuf[b]);
	}
	for (b = 0; b < nb; b++)
		out[b] = maxbuf[b] + log(out[b]);
}

/*
 * Collect and distribute on the junction tree, then clique marginals.
 * Polls by work (a cluster's cells), so a cancel lands within one large
 * tree's pass, not after every pass of an estimator step.
 */
static void
ExactMarginals(MrfBp *bp, const double *logpot, double *marg, double *logz)
{
	const MrfCliqueSet *set = bp->set;
	int			nc = bp->nc;
	int			i;
	int			c;
	double		lz = 0.0;
	int64_t		work = 0;

	/* cluster tables: the sum of the log-potentials of the cliques hosted */
	memset(bp->beta, 0, sizeof(double) * (size_t) bp->coff[nc]);
	for (c = 0; c < set->m; c++)
	{
		int			u = bp->host[c];
		double	   *t = bp->beta + bp->coff[u];
		const int32_t *map = bp->hmap + bp->hmoff[c];
		const double *psi = logpot + set->offset[c];
		int64_t		n = bp->coff[u + 1] - bp->coff[u];
		int64_t		x;

		for (x = 0; x < n; x++)
			t[x] += psi[map[x]];
		MrfPollWork(bp->env, &work, n);
	}

	/* collect: children (later in order) before parents */
	for (i = nc - 1; i >= 0; i--)
	{
		int			u = bp->order[i];
		int			pu = bp->parent[u];
		int64_t		n = bp->coff[u + 1] - bp->coff[u];
		int64_t		ns = bp->soff[u + 1] - bp->soff[u];
		double	   *msg = bp->up + bp->soff[u];

		if (pu < 0)
			continue;
		MrfPollWork(bp->env, &work, n + bp->coff[pu + 1] - bp->coff[pu]);
		LogSumBuckets(bp->beta + bp->coff[u], bp->cmap + bp->coff[u], n, ns,
					  msg, bp->scratch);
		{
			double	   *t = bp->beta + bp->coff[pu];
			const int32_t *pm = bp->pmap + bp->pmoff[u];
			int64_t		np = bp->coff[pu + 1] - bp->coff[pu];
			int64_t		x;

			for (x = 0; x < np; x++)
				t[x] += msg[pm[x]];
		}
	}

	/* distribute: a child's belief is its collected table times the parent's belief over the separator, divided by what it sent */
	for (i = 0; i < nc; i++)
	{
		int			u = bp->order[i];
		int			pu = bp->parent[u];
		int64_t		n = bp->coff[u + 1] - bp->coff[u];
		double	   *b = bp->belief + bp->coff[u];
		const double *t = bp->beta + bp->coff[u];
		int64_t		x;

		MrfPollWork(bp->env, &work, n + (pu < 0 ? 0 : bp->coff[pu + 1] - bp->coff[pu]));
		if (pu < 0)
		{
			double		z;

			memcpy(b, t, sizeof(double) * (size_t) n);
			LogSumBuckets(b, NULL, n, 1, &z, bp->scratch);
			lz += z;			/* roots of disconnected parts multiply */
			continue;
		}
		{
			int64_t		ns = bp->soff[u + 1] - bp->soff[u];
			int64_t		np = bp->coff[pu + 1] - bp->coff[pu];
			double	   *down = bp->down + bp->soff[u];
			const double *up = bp->up + bp->soff[u];
			const int32_t *cm = bp->cmap + bp->coff[u];
			int64_t		s;

			LogSumBuckets(bp->belief + bp->coff[pu], bp->pmap + bp->pmoff[u],
						  np, ns, down, bp->scratch);
			for (s = 0; s < ns; s++)
				down[s] -= up[s];
			for (x = 0; x < n; x++)
				b[x] = t[x] + down[cm[x]];
		}
	}

	/* normalise each cluster by its own total, which absorbs rounding */
	for (c = 0; c < set->m; c++)
	{
		int			u = bp->host[c];
		const double *b = bp->belief + bp->coff[u];
		int64_t		n = bp->coff[u + 1] - bp->coff[u];
		int64_t		nm = set->offset[c + 1] - set->offset[c];
		const int32_t *map = bp->hmap + bp->hmoff[c];
		double	   *out = marg + set->offset[c];
		double		z;
		double		sum = 0.0;
		int64_t		x;

		MrfPollWork(bp->env, &work, n);
		LogSumBuckets(b, NULL, n, 1, &z, bp->scratch);
		memset(out, 0, sizeof(double) * (size_t) nm);
		for (x = 0; x < n; x++)
			out[map[x]] += exp(b[x] - z);
		for (x = 0; x < nm; x++)
			sum += out[x];
		for (x = 0; x < nm; x++)
			out[x] /= sum;
	}
	if (logz != NULL)
		*logz = lz;
}

/*
 * Scores t(x) = psi(x) + sum_j v2f[c, j](x_j) of clique c, filled by an
 * odometer over its cells.
 */
static void
CliqueScores(const MrfBp *bp, int c, const double *psi, double *t)
{
	const MrfCliqueSet *set = bp->set;
	int			k = set->k;
	int			nv = set->start[c + 1] - set->start[c];
	const int  *vars = set->var + set->start[c];
	const double *in = bp->v2f + (int64_t) set->start[c] * k;
	int64_t		n = set->offset[c + 1] - set->offset[c];
	int			digit[64];
	int64_t		x;
	int			j;

	for (j = 0; j < nv; j++)
		digit[j] = 0;
	for (x = 0; x < n; x++)
	{
		double		s = psi[x];

		for (j = 0; j < nv; j++)
			s += in[j * k + digit[j]];
		t[x] = s;
		for (j = nv - 1; j >= 0; j--)
		{
			if (++digit[j] < set->card[vars[j]])
				break;
			digit[j] = 0;
		}
	}
}

/* Subtracts log sum exp so that a log-message sums to one. */
static void
NormaliseLog(double *v, int k)
{
	double		mx = v[0];
	double		s = 0.0;
	int			a;

	for (a = 1; a < k; a++)
		mx = v[a] > mx ? v[a] : mx;
	for (a = 0; a < k; a++)
		s += exp(v[a] - mx);
	s = mx + log(s);
	for (a = 0; a < k; a++)
		v[a] -= s;
}

/*
 * Variable-to-factor messages from the current factor-to-variable ones:
 * everything the variable hears except from the factor itself.
 */
static void
LoopyVariableMessages(MrfBp *bp)
{
	const MrfCliqueSet *set = bp->set;
	int			k = set->k;
	int64_t		slots = (int64_t) set->start[set->m];
	int64_t		s;

	memset(bp->vsum, 0, sizeof(double) * (size_t) set->p * (size_t) k);
	for (s = 0; s < slots; s++)
	{
		int			kv = set->card[set->var[s]];
		int			a;

		for (a = 0; a < kv; a++)
			bp->vsum[(int64_t) set->var[s] * k + a] += bp->f2v[s * k + a];
	}
	for (s = 0; s < slots; s++)
	{
		int			kv = set->card[set->var[s]];
		int			a;

		for (a = 0; a < kv; a++)
			bp->v2f[s * k + a] = bp->vsum[(int64_t) set->var[s] * k + a] - bp->f2v[s * k + a];
		NormaliseLog(bp->v2f + s * k, kv);
	}
}

/*
 * Loopy sum-product with parallel (flooding) updates damped in the log
 * domain; stops when no factor-to-variable message moves by more than the
 * tolerance or after max_iterations sweeps.
 */
static void
LoopyMarginals(MrfBp *bp, const double *logpot, double *marg)
{
	const MrfCliqueSet *set = bp->set;
	int			k = set->k;
	double		d = bp->opt.damping;
	int			it;
	int			c;
	double		change = INFINITY;
	int64_t		work = 0;		/* polls by work: a clique's cells */

	for (it = 0; it < bp->opt.max_iterations; it++)
	{
		change = 0.0;
		LoopyVariableMessages(bp);
		for (c = 0; c < set->m; c++)
		{
			int			nv = set->start[c + 1] - set->start[c];
			const int  *vars = set->var + set->start[c];
			int64_t		n = set->offset[c + 1] - set->offset[c];
			int64_t		base = (int64_t) set->start[c] * k;
			double	   *lse = bp->lse + base;
			double	   *mx = bp->lsemax + base;
			int			digit[64];
			int64_t		x;
			int			j;
			int			a;

			MrfPollWork(bp->env, &work, n * nv);
			CliqueScores(bp, c, logpot + set->offset[c], bp->tab);
			for (j = 0; j < nv * k; j++)
			{
				mx[j] = -INFINITY;
				lse[j] = 0.0;
			}
			for (j = 0; j < nv; j++)
				digit[j] = 0;
			for (x = 0; x < n; x++)
			{
				for (j = 0; j < nv; j++)
					if (bp->tab[x] > mx[j * k + digit[j]])
						mx[j * k + digit[j]] = bp->tab[x];
				for (j = nv - 1; j >= 0; j--)
				{
					if (++digit[j] < set->card[vars[j]])
						break;
					digit[j] = 0;
				}
			}
			for (x = 0; x < n; x++)
			{
				for (j = 0; j < nv; j++)
					lse[j * k + digit[j]] += exp(bp->tab[x] - mx[j * k + digit[j]]);
				for (j = nv - 1; j >= 0; j--)
				{
					if (++digit[j] < set->card[vars[j]])
						break;
					digit[j] = 0;
				}
			}
			for (j = 0; j < nv; j++)
			{
				double	   *msg = bp->msg;
				double	   *old = bp->f2v + base + (int64_t) j * k;
				int			kv = set->card[vars[j]];

				for (a = 0; a < kv; a++)
					msg[a] = mx[j * k + a] + log(lse[j * k + a]) -
						bp->v2f[base + (int64_t) j * k + a];
				NormaliseLog(msg, kv);
				for (a = 0; a < kv; a++)
				{
					double		nv2 = (1.0 - d) * old[a] + d * msg[a];
					double		diff = fabs(nv2 - old[a]);

					change = diff > change ? diff : change;
					old[a] = nv2;
				}
				NormaliseLog(old, kv);
			}
		}
		if (change < bp->opt.tolerance)
		{
			it++;
			break;
		}
	}
	bp->last_iterations = it;
	bp->last_change = change;
	bp->last_converged = change < bp->opt.tolerance;

	/* beliefs: the factor times all incoming variable messages */
	LoopyVariableMessages(bp);
	for (c = 0; c < set->m; c++)
	{
		int64_t		n = set->offset[c + 1] - set->offset[c];
		double	   *out = marg + set->offset[c];
		double		z;
		int64_t		x;

		CliqueScores(bp, c, logpot + set->offset[c], bp->tab);
		LogSumBuckets(bp->tab, NULL, n, 1, &z, bp->lsemax);
		for (x = 0; x < n; x++)
			out[x] = exp(bp->tab[x] - z);
	}
}

/* Dispatches to the junction tree or to loopy BP. */
MrfStatus
MrfBpMarginals(MrfBp *bp, const double *logpot, double *marg, double *logz)
{
	int64_t		x;

	for (x = 0; x < bp->set->cells; x++)
		if (!isfinite(logpot[x]))
			return MRF_EINVAL;
	if (bp->exact)
	{
		ExactMarginals(bp, logpot, marg, logz);
		bp->calibrated = 1;
		bp->query_ready = 0;
		bp->last_iterations = 1;
		bp->last_change = 0.0;
		bp->last_converged = 1;
		return MRF_OK;
	}
	LoopyMarginals(bp, logpot, marg);
	if (logz != NULL)
		*logz = NAN;
	return MRF_OK;
}

/* See bp.h. */
size_t
MrfBpSampleBytes(const MrfBp *bp)
{
	int64_t		cells = bp->exact ? bp->coff[bp->nc] : 0;
	int64_t		seps = bp->exact ? bp->soff[bp->nc] : 0;

	/* marginals, per-bucket cdf and cell order, bucket starts, one row's draws, coverage */
	return sizeof(double) * (size_t) bp->set->cells +
		(sizeof(double) + sizeof(int32_t)) * (size_t) cells +
		sizeof(int64_t) * (size_t) (seps + bp->nc + 1) +
		sizeof(int64_t) * (size_t) bp->nc + (size_t) bp->set->p;
}

/*
 * The conditional tables both exact samplers read, from calibrated
 * log-beliefs: the cells of cluster u sorted into buckets by separator cell
 * s (the cells whose separator digits equal s), a bucket's positions
 * bs[s] .. bs[s + 1] - 1 of u's range (bs = bstart + soff[u] + u: each
 * cluster's bucket starts have one extra end entry), cell[pos] the cluster
 * cell at a position and cdf[pos] the cumulative weight exp(belief - top)
 * within its bucket: the bucket's cdf is proportional to the cumulative
 * conditional P(cells | s).  A bucket of cells all -inf (the model gives s
 * probability 0) is uniform.  covered[v] is set for every variable of a
 * cluster.  Polls with progress 0 of total.
 */
static void
BpBuckets(MrfBp *bp, double *cdf, int32_t *cell, int64_t *bstart, uint8_t *covered,
		  int64_t total)
{
	for (int u = 0; u < bp->nc; u++)
	{
		int64_t		nu = bp->coff[u + 1] - bp->coff[u];
		int64_t		ns = bp->soff[u + 1] - bp->soff[u];
		int64_t    *bs = bstart + bp->soff[u] + u;
		const int32_t *cm = bp->cmap + bp->coff[u];
		const double *b = bp->belief + bp->coff[u];
		double	   *cu = cdf + bp->coff[u];
		int32_t    *xu = cell + bp->coff[u];

		for (int64_t s = 0; s <= ns; s++)
			bs[s] = 0;
		for (int64_t x = 0; x < nu; x++)
			bs[cm[x] + 1]++;
		for (int64_t s = 0; s < ns; s++)
			bs[s + 1] += bs[s];
		/* counting sort of the cells by separator cell (bs[s] moves to the bucket's end) */
		for (int64_t x = 0; x < nu; x++)
			xu[bs[cm[x]]++] = (int32_t) x;
		for (int64_t s = ns; s > 0; s--)
			bs[s] = bs[s - 1];
		bs[0] = 0;
		for (int64_t s = 0; s < ns; s++)
		{
			double		top = -INFINITY;
			double		acc = 0.0;

			for (int64_t j = bs[s]; j < bs[s + 1]; j++)
				if (b[xu[j]] > top)
					top = b[xu[j]];
			for (int64_t j = bs[s]; j < bs[s + 1]; j++)
			{
				acc += isfinite(top) ? exp(b[xu[j]] - top) : 1.0;
				cu[j] = acc;
			}
		}
		for (int i = bp->cstart[u]; i < bp->cstart[u + 1]; i++)
			covered[bp->cvar[i]] = 1;
		MrfPoll(bp->env, 0, total);
	}
}

/* Writes cluster u's cell x into a row: its digits, the last variable the least significant. */
static inline void
BpWriteCell(const MrfBp *bp, int u, int64_t x, MrfCode *row)
{
	for (int j = bp->cstart[u + 1] - 1; j >= bp->cstart[u]; j--)
	{
		int			var = bp->cvar[j];

		row[var] = (MrfCode) (x % bp->set->card[var]);
		x /= bp->set->card[var];
	}
}

/*
 * What both exact samplers read (BpBuckets): the marginals' scratch, the
 * buckets' cumulative weights, cell order and starts, and which variables
 * some cluster covers.
 */
typedef struct BpTables
{
	double	   *marg;
	double	   *cdf;
	int32_t    *cell;
	int64_t    *bstart;
	uint8_t    *covered;
} BpTables;

static void
BpTablesFree(const MrfEnv *env, BpTables *t)
{
	MrfFree(env, t->marg);
	MrfFree(env, t->cdf);
	MrfFree(env, t->cell);
	MrfFree(env, t->bstart);
	MrfFree(env, t->covered);
	memset(t, 0, sizeof(*t));
}

/*
 * Calibrates bp from logpot and fills t (BpBuckets, polling with progress
 * 0 of total); MRF_ENOMEM with nothing held when an allocation fails,
 * MRF_ERANGE when the marginals are not finite.
 */
static MrfStatus
BpTablesPrepare(MrfBp *bp, const double *logpot, int64_t total, BpTables *t)
{
	const MrfEnv *env = bp->env;
	int64_t		cells = bp->coff[bp->nc];
	int64_t		seps = bp->soff[bp->nc];
	int			p = bp->set->p;

	t->marg = MrfAllocUninit(env, sizeof(double) * (size_t) (bp->set->cells > 0 ? bp->set->cells : 1));
	t->cdf = MrfAllocUninit(env, sizeof(double) * (size_t) (cells > 0 ? cells : 1));
	t->cell = MrfAllocUninit(env, sizeof(int32_t) * (size_t) (cells > 0 ? cells : 1));
	t->bstart = MrfAlloc(env, sizeof(int64_t) * (size_t) (seps + bp->nc + 1));
	t->covered = MrfAlloc(env, (size_t) (p > 0 ? p : 1));
	if (t->marg == NULL || t->cdf == NULL || t->cell == NULL || t->bstart == NULL ||
		t->covered == NULL)
	{
		BpTablesFree(env, t);
		return MRF_ENOMEM;
	}
	ExactMarginals(bp, logpot, t->marg, NULL);
	/* finite potentials near 1e308 can overflow in the messages: no NaN is drawn from */
	for (int64_t x = 0; x < bp->set->cells; x++)
		if (!isfinite(t->marg[x]))
		{
			BpTablesFree(env, t);
			return MRF_ERANGE;
		}
	BpBuckets(bp, t->cdf, t->cell, t->bstart, t->covered, total);
	return MRF_OK;
}

/*
 * See bp.h.  The calibrated log-beliefs of a cluster, restricted to one
 * value of its separator with its parent, are the conditional of the
 * cluster's other variables given that value (up to a constant): sampling
 * clusters parents first draws a row from the joint (the junction tree's
 * factorisation P = prod_u P(u | sep_u)).  Each cluster's cells are sorted
 * into buckets by separator cell once (BpBuckets); a row then costs one
 * binary search per cluster.  The separator cell comes from the parent's
 * drawn cell through pmap, so no digit is re-encoded.
 */
MrfStatus
MrfBpSample(MrfBp *bp, const double *logpot, int64_t n, MrfRng *rng, MrfCode *out)
{
	const MrfCliqueSet *set = bp->set;
	const MrfEnv *env = bp->env;
	int			nc = bp->nc;
	int			p = set->p;
	BpTables	t = {0};
	const double *cdf;
	const int32_t *cell;
	const int64_t *bstart;
	const uint8_t *covered;
	int64_t    *chosen;
	MrfStatus	status;

	if (!bp->exact)
		return MRF_EINVAL;
	chosen = MrfAlloc(env, sizeof(int64_t) * (size_t) (nc > 0 ? nc : 1));
	if (chosen == NULL)
		return MRF_ENOMEM;
	status = BpTablesPrepare(bp, logpot, n, &t);
	if (status != MRF_OK)
		goto done;
	cdf = t.cdf;
	cell = t.cell;
	bstart = t.bstart;
	covered = t.covered;

	for (int64_t r = 0; r < n; r++)
	{
		MrfCode    *row = out + r * (int64_t) p;

		for (int i = 0; i < nc; i++)
		{
			int			u = bp->order[i];
			int			pu = bp->parent[u];
			int64_t		s = pu < 0 ? 0 : bp->pmap[bp->pmoff[u] + chosen[pu]];
			const int64_t *bs = bstart + bp->soff[u] + u;
			const double *cu = cdf + bp->coff[u];
			int64_t		lo = bs[s];
			int64_t		hi = bs[s + 1] - 1;
			double		v = MrfRngUniform(rng) * cu[hi];

			/* the first position whose cumulative weight exceeds v */
			while (lo < hi)
			{
				int64_t		mid = lo + (hi - lo) / 2;

				if (cu[mid] > v)
					hi = mid;
				else
					lo = mid + 1;
			}
			chosen[u] = cell[bp->coff[u] + lo];
			BpWriteCell(bp, u, chosen[u], row);
		}
		for (int j = 0; j < p; j++)
			if (!covered[j])
				row[j] = (MrfCode) MrfRngBelow(rng, (uint64_t) set->card[j]);
		if ((r & 4095) == 4095 || r + 1 == n)
			MrfPoll(env, r + 1, n);
	}

done:
	BpTablesFree(env, &t);
	MrfFree(env, chosen);
	return status;
}

/* See bp.h. */
size_t
MrfBpAllocateBytes(const MrfBp *bp, int64_t n)
{
	/* the sampler's tables, and per row: its separator cell, its place by bucket, one value */
	return MrfBpSampleBytes(bp) + (sizeof(int64_t) + 2 * sizeof(int32_t)) * (size_t) (n > 0 ? n : 1);
}

/* Rows between two polls of the allocation's per-row loops (2^20). */
#define ALLOCATE_POLL_MASK ((int64_t) 0xFFFFF)

/*
 * m values, cum's positions 0..k-1 each repeated its allocated count, in a
 * random order, into vals.  cum is cumulative (non-decreasing, cum[k - 1] >
 * 0); position j's share is (cum[j] - cum[j - 1]) / cum[k - 1], and its
 * count floor or ceil of m times its share, by systematic rounding: with U
 * uniform on (0, 1), position j gets floor(m cum[j] / cum[k - 1] + U) -
 * floor(m cum[j - 1] / cum[k - 1] + U).  The counts sum to m, each is
 * within 1 of m times its share, and the ceiling comes with probability
 * the fractional part, so each count's expectation is exactly m times its
 * share.  Largest remainder would be within 1 too, but it always gives
 * the extra rows to the largest fractions: a bucket of one row would then
 * always take its most likely cell, which biases every marginal below a
 * small bucket towards the mode (private-pgm's synthetic_data draws the
 * extra rows with probability proportional to the fractions for the same
 * reason).  A share of 0 gets no row.  The values are shuffled
 * (Fisher-Yates) so that which of the bucket's rows gets which value is
 * random.
 */
static void
AllocateCounts(const MrfEnv *env, int64_t stage, int64_t stages,
			   const double *cum, int64_t k, int64_t m, MrfRng *rng, int32_t *vals)
{
	double		total = cum[k - 1];
	double		u = MrfRngUniform(rng);
	int64_t		prev = 0;
	int64_t		filled = 0;

	for (int64_t j = 0; j < k && filled < m; j++)
	{
		int64_t		upto = j == k - 1 ? m : (int64_t) floor((double) m * (cum[j] / total) + u);

		if (upto > m)
			upto = m;
		for (; prev < upto; prev++)
			vals[filled++] = (int32_t) j;
	}
	/* a shuffle of 10^7 values takes most of a second: a cancel lands within it */
	for (int64_t i = m - 1; i > 0; i--)
	{
		int64_t		o = (int64_t) MrfRngBelow(rng, (uint64_t) i + 1);
		int32_t		t = vals[i];

		vals[i] = vals[o];
		vals[o] = t;
		if ((i & ALLOCATE_POLL_MASK) == 0)
			MrfPoll(env, stage, stages);
	}
}

/*
 * See bp.h.  Clusters in the junction tree's order, parents first: the
 * rows are grouped by the value of the cluster's separator with its parent
 * (one group of all n rows at a root), and each group's m_s rows get the
 * cluster's cells in counts rounded from m_s P(cell | s) (AllocateCounts),
 * assigned to the group's rows in random order.  A variable in no clique is
 * allocated the same way from its uniform marginal.  The root's values are
 * shuffled and every later assignment within a group is a random matching,
 * so the row order is already random: no final shuffle is needed.
 */
MrfStatus
MrfBpAllocate(MrfBp *bp, const double *logpot, int64_t n, MrfRng *rng, MrfCode *out)
{
	const MrfCliqueSet *set = bp->set;
	const MrfEnv *env = bp->env;
	int			nc = bp->nc;
	int			p = set->p;
	BpTables	t = {0};
	int64_t    *key = NULL;
	int32_t    *byrow = NULL;
	int32_t    *vals = NULL;
	int64_t    *fill = NULL;
	double	   *uniform = NULL;
	int		   *sepvars = NULL;
	int64_t		maxsep = 1;
	MrfStatus	status = MRF_OK;

	if (!bp->exact || n < 0 || n > INT32_MAX)
		return MRF_EINVAL;
	if (n == 0)
		return MRF_OK;
	for (int u = 0; u < nc; u++)
		if (bp->soff[u + 1] - bp->soff[u] > maxsep)
			maxsep = bp->soff[u + 1] - bp->soff[u];
	key = MrfAllocUninit(env, sizeof(int64_t) * (size_t) n);
	byrow = MrfAllocUninit(env, sizeof(int32_t) * (size_t) n);
	vals = MrfAllocUninit(env, sizeof(int32_t) * (size_t) n);
	fill = MrfAllocUninit(env, sizeof(int64_t) * (size_t) (maxsep + 1));
	uniform = MrfAllocUninit(env, sizeof(double) * (size_t) (set->k > 0 ? set->k : 1));
	sepvars = MrfAllocUninit(env, sizeof(int) * (size_t) (p > 0 ? p : 1));
	if (key == NULL || byrow == NULL || vals == NULL || fill == NULL || uniform == NULL ||
		sepvars == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	status = BpTablesPrepare(bp, logpot, nc + 1, &t);
	if (status != MRF_OK)
		goto done;

	for (int i = 0; i < nc; i++)
	{
		int			u = bp->order[i];
		int			pu = bp->parent[u];
		int64_t		ns = bp->soff[u + 1] - bp->soff[u];
		const int64_t *bs = t.bstart + bp->soff[u] + u;
		const double *cu = t.cdf + bp->coff[u];
		const int32_t *xu = t.cell + bp->coff[u];
		int			nsv = 0;

		/* each row's separator cell, from the values its parent's cluster gave it */
		if (pu >= 0)
			nsv = Intersect(bp->cvar + bp->cstart[u], bp->cstart[u + 1] - bp->cstart[u],
							bp->cvar + bp->cstart[pu], bp->cstart[pu + 1] - bp->cstart[pu],
							sepvars);
		for (int64_t s = 0; s <= ns; s++)
			fill[s] = 0;
		for (int64_t r = 0; r < n; r++)
		{
			const MrfCode *row = out + r * (int64_t) p;
			int64_t		s = 0;

			for (int j = 0; j < nsv; j++)
				s = s * set->card[sepvars[j]] + row[sepvars[j]];
			key[r] = s;
			fill[s + 1]++;
			if ((r & ALLOCATE_POLL_MASK) == ALLOCATE_POLL_MASK)
				MrfPoll(env, i, nc + 1);
		}
		for (int64_t s = 0; s < ns; s++)
			fill[s + 1] += fill[s];
		/* the rows grouped by separator cell, in row order within a group */
		for (int64_t r = 0; r < n; r++)
		{
			byrow[fill[key[r]]++] = (int32_t) r;
			if ((r & ALLOCATE_POLL_MASK) == ALLOCATE_POLL_MASK)
				MrfPoll(env, i, nc + 1);
		}
		for (int64_t s = ns; s > 0; s--)
			fill[s] = fill[s - 1];
		fill[0] = 0;
		for (int64_t s = 0; s < ns; s++)
		{
			int64_t		m = fill[s + 1] - fill[s];

			if (m == 0)
				continue;
			AllocateCounts(env, i, nc + 1, cu + bs[s], bs[s + 1] - bs[s], m, rng, vals);
			for (int64_t t = 0; t < m; t++)
			{
				BpWriteCell(bp, u, xu[bs[s] + vals[t]],
							out + (int64_t) byrow[fill[s] + t] * p);
				if ((t & ALLOCATE_POLL_MASK) == ALLOCATE_POLL_MASK)
					MrfPoll(env, i, nc + 1);
			}
		}
		MrfPoll(env, i + 1, nc + 1);
	}
	/* variables in no clique: their uniform marginal */
	for (int j = 0; j < p; j++)
	{
		if (t.covered[j])
			continue;
		for (int a = 0; a < set->card[j]; a++)
			uniform[a] = a + 1;
		AllocateCounts(env, nc, nc + 1, uniform, set->card[j], n, rng, vals);
		for (int64_t r = 0; r < n; r++)
			out[r * (int64_t) p + j] = (MrfCode) vals[r];
		MrfPoll(env, nc, nc + 1);
	}
	MrfPoll(env, nc + 1, nc + 1);

done:
	BpTablesFree(env, &t);
	MrfFree(env, key);
	MrfFree(env, byrow);
	MrfFree(env, vals);
	MrfFree(env, fill);
	MrfFree(env, uniform);
	MrfFree(env, sepvars);
	return status;
}

/* Uniform messages are log 0 = 0 after normalisation up to a constant. */
void
MrfBpReset(MrfBp *bp)
{
	if (!bp->exact)
		memset(bp->f2v, 0, sizeof(double) * (size_t) bp->set->start[bp->set->m] * (size_t) bp->set->k);
}

/* Copies out the engine's shape and the statistics of its last call. */
void
MrfBpGetInfo(const MrfBp *bp, MrfBpInfo *info)
{
	memset(info, 0, sizeof(*info));
	info->exact = bp->exact;
	info->decomposable = bp->decomposable;
	info->clusters = bp->exact ? bp->nc : 0;
	info->cluster_cells = bp->exact ? bp->coff[bp->nc] : 0;
	info->last_iterations = bp->last_iterations;
	info->last_change = bp->last_change;
	info->last_converged = bp->last_converged;
	info->bytes = bp->bytes;
}

/* Frees every array (NULL ones included) and the engine. */
void
MrfBpFree(MrfBp *bp)
{
	const MrfEnv *env;

	if (bp == NULL)
		return;
	env = bp->env;
	MrfFree(env, bp->cstart);
	MrfFree(env, bp->cvar);
	MrfFree(env, bp->coff);
	MrfFree(env, bp->parent);
	MrfFree(env, bp->order);
	MrfFree(env, bp->soff);
	MrfFree(env, bp->cmap);
	MrfFree(env, bp->pmoff);
	MrfFree(env, bp->pmap);
	MrfFree(env, bp->host);
	MrfFree(env, bp->hmoff);
	MrfFree(env, bp->hmap);
	MrfFree(env, bp->beta);
	MrfFree(env, bp->belief);
	MrfFree(env, bp->up);
	MrfFree(env, bp->down);
	MrfFree(env, bp->scratch);
	MrfFree(env, bp->scratch2);
	MrfFree(env, bp->f2v);
	MrfFree(env, bp->v2f);
	MrfFree(env, bp->vsum);
	MrfFree(env, bp->tab);
	MrfFree(env, bp->lse);
	MrfFree(env, bp->lsemax);
	MrfFree(env, bp->msg);
	MrfFree(env, bp->cond);
	MrfFree(env, bp->margp);
	MrfFree(env, bp->vhost);
	MrfFree(env, bp);
}

/*
 * ---- marginals of any set of variables on a calibrated junction tree ----
 *
 * After calibration, cluster u's belief divided by its separator's belief
 * is P(C_u \ S_u | S_u), and the product of these conditionals over a
 * connected subtree, times the marginal of the subtree's top cluster, is the
 * joint distribution of the subtree's variables (the junction tree
 * factorisation, Lauritzen and Spiegelhalter 1988; Koller and Friedman 2009,
 * 10.3.3: "out-of-clique" queries).  A set's marginal is therefore variable
 * elimination over the smallest subtree that holds every variable of the
 * set, summing out everything else: no new triangulation, and the work is
 * that of the clusters between the set's variables, not of the model.
 */

/* A factor of variable elimination: a table over sorted variables. */
typedef struct BpFactor
{
	int			nv;
	int		   *vars;
	int64_t		cells;
	double	   *val;
	int			owned;			/* val and vars allocated here */
	int			live;
} BpFactor;

/* Fills bp's query tables from the last calibration. */
static MrfStatus
BpQueryPrepare(MrfBp *bp)
{
	const MrfCliqueSet *set = bp->set;
	int64_t		total = bp->coff[bp->nc];
	int			u;
	int			v;

	if (bp->cond == NULL)
	{
		bp->cond = BpAlloc(bp, sizeof(double) * (size_t) (total > 0 ? total : 1));
		bp->margp = BpAlloc(bp, sizeof(double) * (size_t) (total > 0 ? total : 1));
		bp->vhost = BpAlloc(bp, sizeof(int) * (size_t) set->p);
		if (bp->cond == NULL || bp->margp == NULL || bp->vhost == NULL)
			return MRF_ENOMEM;
	}
	for (v = 0; v < set->p; v++)
		bp->vhost[v] = -1;
	for (u = 0; u < bp->nc; u++)
	{
		const double *b = bp->belief + bp->coff[u];
		int64_t		n = bp->coff[u + 1] - bp->coff[u];
		int64_t		ns = bp->soff[u + 1] - bp->soff[u];
		const int32_t *cm = bp->cmap + bp->coff[u];
		double	   *sep = bp->up + bp->soff[u];	/* free after calibration */
		double		z;
		int64_t		x;
		int			i;

		for (i = bp->cstart[u]; i < bp->cstart[u + 1]; i++)
			if (bp->vhost[bp->cvar[i]] < 0)
				bp->vhost[bp->cvar[i]] = u;
		LogSumBuckets(b, NULL, n, 1, &z, bp->scratch);
		if (bp->parent[u] < 0)
		{
			for (x = 0; x < n; x++)
				bp->cond[bp->coff[u] + x] = bp->margp[bp->coff[u] + x] = exp(b[x] - z);
			continue;
		}
		LogSumBuckets(b, cm, n, ns, sep, bp->scratch);
		for (x = 0; x < n; x++)
		{
			bp->margp[bp->coff[u] + x] = exp(b[x] - z);
			/* a separator cell of probability 0 has a conditional of 0 */
			bp->cond[bp->coff[u] + x] = isfinite(sep[cm[x]]) ? exp(b[x] - sep[cm[x]]) : 0.0;
		}
	}
	bp->query_ready = 1;
	return MRF_OK;
}

/* Cells of the union of two sorted variable lists (written to out), or -1 above limit. */
static int64_t
UnionVars(const int *card, const int *a, int na, const int *b, int nb, int *out,
		  int *nout, int64_t limit)
{
	int			i = 0;
	int			j = 0;
	int			n = 0;

	while (i < na || j < nb)
	{
		if (j >= nb || (i < na && a[i] < b[j]))
			out[n++] = a[i++];
		else if (i >= na || b[j] < a[i])
			out[n++] = b[j++];
		else
		{
			out[n++] = a[i++];
			j++;
		}
		if (n >= 64)
			return -1;
	}
	*nout = n;
	return MrfVarsCells(card, n, out, limit);
}

/*
 * out (over the sorted variables r, a subset of u) = sum over the cells of
 * u of the product of the factors fs (each over a subset of u), by an
 * odometer that moves every factor's index by its stride.
 */
static void
FactorProductSum(const int *card, int nu, const int *u, int nf, BpFactor *const *fs,
				 int nr, const int *r, double *out, const MrfEnv *env)
{
	int64_t		fstride[16][64];
	int64_t		rstride[64];
	int64_t		fidx[16];
	int64_t		ridx = 0;
	int			digit[64];
	int64_t		cells = 1;
	int64_t		rcells = 1;
	int64_t		x;
	int			i;
	int			f;

	for (f = 0; f < nf; f++)
	{
		int			j = fs[f]->nv - 1;
		int64_t		s = 1;

		for (i = nu - 1; i >= 0; i--)
		{
			if (j >= 0 && fs[f]->vars[j] == u[i])
			{
				fstride[f][i] = s;
				s *= card[u[i]];
				j--;
			}
			else
				fstride[f][i] = 0;
		}
		fidx[f] = 0;
	}
	{
		int			j = nr - 1;
		int64_t		s = 1;

		for (i = nu - 1; i >= 0; i--)
		{
			if (j >= 0 && r[j] == u[i])
			{
				rstride[i] = s;
				s *= card[u[i]];
				j--;
			}
			else
				rstride[i] = 0;
		}
		rcells = s;
	}
	for (i = 0; i < nu; i++)
	{
		digit[i] = 0;
		cells *= card[u[i]];
	}
	memset(out, 0, sizeof(double) * (size_t) rcells);
	for (x = 0; x < cells; x++)
	{
		double		v = 1.0;

		for (f = 0; f < nf; f++)
			v *= fs[f]->val[fidx[f]];
		out[ridx] += v;
		if ((x & ((1 << 22) - 1)) == (1 << 22) - 1)
			MrfPoll(env, x, cells);
		for (i = nu - 1; i >= 0; i--)
		{
			if (++digit[i] < card[u[i]])
			{
				for (f = 0; f < nf; f++)
					fidx[f] += fstride[f][i];
				ridx += rstride[i];
				break;
			}
			digit[i] = 0;
			for (f = 0; f < nf; f++)
				fidx[f] -= fstride[f][i] * (card[u[i]] - 1);
			ridx -= rstride[i] * (card[u[i]] - 1);
		}
	}
}

/* Whether sorted list a holds v. */
static int
HasVar(const int *a, int na, int v)
{
	int			i;

	for (i = 0; i < na; i++)
		if (a[i] == v)
			return 1;
	return 0;
}

/* See bp.h. */
MrfStatus
MrfBpPrepareQueries(MrfBp *bp)
{
	if (!bp->exact || !bp->calibrated)
		return MRF_EINVAL;
	return bp->query_ready ? MRF_OK : BpQueryPrepare(bp);
}

/* Marginal of vars (ascending, distinct) after an exact calibration. */
MrfStatus
MrfBpSetMarginal(MrfBp *bp, int size, const int *vars, int64_t max_cells,
				 double *out, int64_t *need)
{
	return MrfBpSetMarginalIn(bp, bp->env, size, vars, max_cells, out, need);
}

/*
 * The same with the elimination's tables from env: the engine is only
 * read, once its queries are prepared (so threads may query it at once).
 */
MrfStatus
MrfBpSetMarginalIn(MrfBp *bp, const MrfEnv *env, int size, const int *vars,
				   int64_t max_cells, double *out, int64_t *need)
{
	const MrfCliqueSet *set = bp->set;
	const int  *card = set->card;
	int			nc = bp->nc;
	int		   *mark = NULL;
	int		   *kids = NULL;
	BpFactor   *fac = NULL;
	int			nf = 0;
	int			top;
	int			cover = -1;
	int64_t		outcells;
	MrfStatus	status = MRF_OK;
	int			j;
	int			u;

	if (need != NULL)
		*need = 0;
	if (size < 1 || size > 64 || !bp->exact || !bp->calibrated)
		return MRF_EINVAL;
	for (j = 0; j < size; j++)
		if (vars[j] < 0 || vars[j] >= set->p || (j > 0 && vars[j] <= vars[j - 1]))
			return MRF_EINVAL;
	if (max_cells <= 0)
		max_cells = bp->opt.max_exact_cells;
	outcells = MrfVarsCells(card, size, vars, max_cells);
	if (outcells < 0)
	{
		if (need != NULL)
			*need = MrfVarsCells(card, size, vars, INT64_MAX);
		return MRF_EINVAL;
	}
	if (!bp->query_ready && (status = BpQueryPrepare(bp)) != MRF_OK)
		return status;

	/* one cluster holding the whole set: its marginal, summed */
	for (u = 0; u < nc && cover < 0; u++)
		if (IsSubset(vars, size, bp->cvar + bp->cstart[u], bp->cstart[u + 1] - bp->cstart[u]))
			cover = u;
	if (cover >= 0)
	{
		BpFactor	f;
		BpFactor   *fp = &f;

		f.nv = bp->cstart[cover + 1] - bp->cstart[cover];
		f.vars = bp->cvar + bp->cstart[cover];
		f.val = bp->margp + bp->coff[cover];
		FactorProductSum(card, f.nv, f.vars, 1, &fp, size, vars, out, env);
		goto normalise;
	}

	/*
	 * The smallest subtree holding a cluster of every covered variable: the
	 * paths of those clusters to the root, less the chain above their
	 * lowest common ancestor.
	 */
	mark = MrfAlloc(env, sizeof(int) * (size_t) nc);
	kids = MrfAlloc(env, sizeof(int) * (size_t) nc);
	if (mark == NULL || kids == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	for (j = 0; j < size; j++)
	{
		u = bp->vhost[vars[j]];
		if (u < 0)
			continue;
		mark[u] |= 2;			/* a terminal */
		while (u >= 0 && !(mark[u] & 1))
		{
			mark[u] |= 1;
			if (bp->parent[u] >= 0)
				kids[bp->parent[u]]++;
			u = bp->parent[u];
		}
	}
	top = bp->order[0];
	if (!(mark[top] & 1))
		top = -1;				/* no variable of the set is covered */
	while (top >= 0 && !(mark[top] & 2) && kids[top] == 1)
	{
		int			next = -1;

		mark[top] = 0;
		for (u = 0; u < nc && next < 0; u++)
			if ((mark[u] & 1) && bp->parent[u] == top)
				next = u;
		top = next;
	}

	/* the factors: the top's marginal, every other cluster's conditional */
	fac = MrfAlloc(env, sizeof(BpFactor) * ((size_t) nc + 1));
	if (fac == NULL)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	for (u = 0; u < nc; u++)
	{
		if (!(mark[u] & 1))
			continue;
		fac[nf].nv = bp->cstart[u + 1] - bp->cstart[u];
		fac[nf].vars = bp->cvar + bp->cstart[u];
		fac[nf].cells = bp->coff[u + 1] - bp->coff[u];
		fac[nf].val = (u == top ? bp->margp : bp->cond) + bp->coff[u];
		fac[nf].owned = 0;
		fac[nf].live = 1;
		nf++;
	}

	/*
	 * Greedy elimination: each step sums out the variable (not of the set)
	 * whose factors' product is smallest (the work); the product is
	 * streamed into its sum, so the tables held are the sums: on a tree at
	 * most a separator times the set's own variables.
	 */
	for (;;)
	{
		int			best = -1;
		int64_t		best_cells = -1;
		int			uvars[64];
		int			nu = 0;
		int			rvars[64];
		int			nr = 0;
		BpFactor   *use[16];
		int			nuse = 0;
		int			f;
		int			g;

		for (f = 0; f < nf; f++)
		{
			if (!fac[f].live)
				continue;
			for (j = 0; j < fac[f].nv; j++)
			{
				int			v = fac[f].vars[j];
				int			tmp[64];
				int			ntmp = 0;
				int64_t		cells = 1;
				int			cnt = 0;

				if (HasVar(vars, size, v))
					continue;
				/* the union of v's factors */
				for (g = 0; g < nf && cells >= 0; g++)
				{
					int			merged[64];
					int			nm;

					if (!fac[g].live || !HasVar(fac[g].vars, fac[g].nv, v))
						continue;
					cells = UnionVars(card, tmp, ntmp, fac[g].vars, fac[g].nv, merged, &nm,
									  INT64_MAX / 4);
					if (cells >= 0)
					{
						memcpy(tmp, merged, sizeof(int) * (size_t) nm);
						ntmp = nm;
					}
					cnt++;
				}
				if (cells < 0)
					cells = INT64_MAX / 4;
				if (cnt > 16)
					cells = INT64_MAX / 4;	/* never: a variable's clusters in a subtree */
				if (best < 0 || cells < best_cells)
				{
					best = v;
					best_cells = cells;
				}
			}
		}
		if (best < 0)
			break;
		/* the product is streamed, never stored: only its sum is a table */
		if (best_cells / card[best] > max_cells)
		{
			if (need != NULL)
				*need = best_cells / card[best];
			status = MRF_EINVAL;
			goto done;
		}
		for (f = 0; f < nf; f++)
		{
			int			merged[64];
			int			nm;

			if (!fac[f].live || !HasVar(fac[f].vars, fac[f].nv, best))
				continue;
			if (nuse == 16)
			{
				status = MRF_EINVAL;
				goto done;
			}
			use[nuse++] = &fac[f];
			(void) UnionVars(card, uvars, nu, fac[f].vars, fac[f].nv, merged, &nm, INT64_MAX);
			memcpy(uvars, merged, sizeof(int) * (size_t) nm);
			nu = nm;
		}
		for (j = 0; j < nu; j++)
			if (uvars[j] != best)
				rvars[nr++] = uvars[j];
		{
			BpFactor   *nfct = &fac[nf];

			nfct->nv = nr;
			nfct->vars = MrfAlloc(env, sizeof(int) * (size_t) (nr > 0 ? nr : 1));
			nfct->cells = MrfVarsCells(card, nr, rvars, INT64_MAX);
			nfct->val = MrfAllocUninit(env, sizeof(double) * (size_t) nfct->cells);
			nfct->owned = 1;
			nfct->live = 1;
			if (nfct->vars == NULL || nfct->val == NULL)
			{
				MrfFree(env, nfct->vars);
				MrfFree(env, nfct->val);
				status = MRF_ENOMEM;
				goto done;
			}
			memcpy(nfct->vars, rvars, sizeof(int) * (size_t) nr);
			FactorProductSum(card, nu, uvars, nuse, use, nr, rvars, nfct->val, env);
			for (g = 0; g < nuse; g++)
			{
				use[g]->live = 0;
				if (use[g]->owned)
				{
					MrfFree(env, use[g]->vars);
					MrfFree(env, use[g]->val);
					use[g]->owned = 0;
				}
			}
			/* compact: the slots of dead factors are reused */
			{
				int			w = 0;

				for (g = 0; g <= nf; g++)
					if (fac[g].live)
						fac[w++] = fac[g];
				nf = w;
			}
		}
		MrfPoll(env, 0, 0);
	}

	/*
	 * What is left is over the set's variables: their product, one factor
	 * at a time into out (a variable no cluster holds is uniform).
	 */
	{
		double	   *tmp = MrfAllocUninit(env, sizeof(double) * (size_t) outcells);
		BpFactor	acc;
		int64_t		x;
		int			f;

		if (tmp == NULL)
		{
			status = MRF_ENOMEM;
			goto done;
		}
		for (x = 0; x < outcells; x++)
			out[x] = 1.0;
		acc.nv = size;
		acc.vars = (int *) vars;
		acc.val = out;
		for (f = 0; f < nf; f++)
		{
			BpFactor   *two[2];

			if (!fac[f].live)
				continue;
			two[0] = &acc;
			two[1] = &fac[f];
			FactorProductSum(card, size, vars, 2, two, size, vars, tmp, env);
			memcpy(out, tmp, sizeof(double) * (size_t) outcells);
		}
		MrfFree(env, tmp);
	}

normalise:
	{
		double		sum = 0.0;
		int64_t		x;

		for (x = 0; x < outcells; x++)
			sum += out[x];
		if (sum > 0)
			for (x = 0; x < outcells; x++)
				out[x] /= sum;
	}
done:
	if (fac != NULL)
		for (j = 0; j < nf; j++)
			if (fac[j].owned)
			{
				MrfFree(env, fac[j].vars);
				MrfFree(env, fac[j].val);
			}
	MrfFree(env, fac);
	MrfFree(env, mark);
	MrfFree(env, kids);
	return status;
}
