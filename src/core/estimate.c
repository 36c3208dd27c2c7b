/*
 * estimate.c - the measure, select and estimate steps of the
 * select-measure-estimate family (MST, AIM): Gaussian measurements, the
 * exponential mechanism by Gumbel-max, and Private-PGM's estimation by
 * entropic mirror descent.  See estimate.h.
 */
#include <math.h>
#include <string.h>

#include "cliques.h"
#include "estimate.h"
#include "privacy.h"

/* See estimate.h. */
MrfStatus
MrfMeasureGaussian(const int64_t *x, int64_t cells, uint64_t num, uint64_t den,
				   MrfRng *rng, double *y)
{
	for (int64_t c = 0; c < cells; c++)
	{
		int64_t		z = MrfRngDiscreteGaussian(rng, num, den);

		if (z == MRF_NOISE_INVALID)
			return MRF_EINVAL;
		y[c] = (double) x[c] + (double) z;
	}
	return MRF_OK;
}

/* See estimate.h. */
int
MrfExponentialSelect(const double *score, const uint8_t *eligible, int count,
					 double scale, MrfRng *rng)
{
	int			best = -1;
	double		best_value = -INFINITY;

	if (!isfinite(scale) || scale <= 0.0)
		return -1;
	for (int c = 0; c < count; c++)
	{
		double		v;

		if (eligible && !eligible[c])
			continue;
		/* a Gumbel per eligible candidate, whatever the scores: the law is exact */
		v = scale * score[c] + MrfRngGumbel(rng);
		if (best < 0 || v > best_value)
		{
			best = c;
			best_value = v;
		}
	}
	return best;
}

/* See estimate.h. */
void
MrfProjectOneWay(const double *y, const double *precision, int cells, int64_t n,
				 double *out)
{
	double		lo = INFINITY;
	double		hi = -INFINITY;
	double		total = (double) n;

	/*
	 * KKT: m[a] = max(0, y[a] - lambda / w[a]), sum m decreasing in lambda;
	 * at lo every m[a] >= n, at hi every m[a] = 0.
	 */
	for (int a = 0; a < cells; a++)
	{
		double		w = precision ? precision[a] : 1.0;

		lo = fmin(lo, w * (y[a] - total));
		hi = fmax(hi, w * y[a]);
	}
	for (int it = 0; it < 200 && hi > lo; it++)
	{
		double		mid = 0.5 * (lo + hi);
		double		s = 0.0;

		if (mid <= lo || mid >= hi)
			break;
		for (int a = 0; a < cells; a++)
			s += fmax(0.0, y[a] - mid / (precision ? precision[a] : 1.0));
		if (s > total)
			lo = mid;
		else
			hi = mid;
	}
	{
		double		s = 0.0;

		for (int a = 0; a < cells; a++)
		{
			out[a] = fmax(0.0, y[a] - hi / (precision ? precision[a] : 1.0));
			s += out[a];
		}
		for (int a = 0; a < cells; a++)
			out[a] = s > 0.0 ? out[a] / s : 1.0 / cells;
	}
}

/* ---- estimation: entropic mirror descent ---- */

/* See estimate.h. */
void
MrfEstimateDefaultOptions(MrfEstimateOptions *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->iterations = 1000;
	opt->bp.mode = MRF_INFER_AUTO;
}

/*
 * map[x] = the cell of the sub-table over sub (sorted, a subset of sup) of
 * cell x of the table over sup (sorted): mixed radix, each digit in its
 * variable's base.
 */
static void
SubsetMap(const int *card, int nsup, const int *sup, int nsub, const int *sub,
		  int64_t cells, int32_t *map)
{
	int			digit[64];
	int64_t		stride[64];		/* the sub-table stride of sup[i], 0 if absent */

	for (int i = 0; i < nsup; i++)
	{
		int64_t		s = 1;
		int			found = 0;

		for (int j = nsub - 1; j >= 0; j--)
		{
			if (sub[j] == sup[i])
			{
				found = 1;
				break;
			}
			s *= card[sub[j]];
		}
		stride[i] = found ? s : 0;
		digit[i] = 0;
	}
	for (int64_t x = 0; x < cells; x++)
	{
		int64_t		idx = 0;

		for (int i = 0; i < nsup; i++)
			idx += stride[i] * digit[i];
		map[x] = (int32_t) idx;
		for (int i = nsup - 1; i >= 0; i--)
		{
			if (++digit[i] < card[sup[i]])
				break;
			digit[i] = 0;
		}
	}
}

/* The estimator's working state. */
typedef struct Estimator
{
	const MrfCliqueSet *set;
	const int  *card;
	const MrfMeasurement *meas;
	int			nmeas;
	double		total;
	MrfBp	   *bp;
	int32_t   **map;			/* per measurement: clique cell -> measured cell */
	int64_t    *mcells;			/* per measurement: its cells */
	double	   *sub;			/* scratch: one measured table */
	int64_t		evaluations;
} Estimator;

/*
 * The loss of mu (set->cells, total times the clique marginals) and, when
 * grad is not NULL, its gradient in mu (set->cells).
 */
static void
LossAndGradient(Estimator *e, const double *mu, double *grad, double *loss)
{
	const MrfCliqueSet *set = e->set;
	double		l = 0.0;

	if (grad)
		memset(grad, 0, sizeof(double) * set->cells);
	for (int m = 0; m < e->nmeas; m++)
	{
		const MrfMeasurement *ms = &e->meas[m];
		int			c = ms->clique;
		int64_t		off = set->offset[c];
		int64_t		cells = set->offset[c + 1] - off;
		const int32_t *map = e->map[m];

		memset(e->sub, 0, sizeof(double) * e->mcells[m]);
		for (int64_t x = 0; x < cells; x++)
			e->sub[map[x]] += mu[off + x];
		for (int64_t s = 0; s < e->mcells[m]; s++)
		{
			double		w = ms->precision ? ms->precision[s] : 1.0 / ms->sigma2;
			double		d = e->sub[s] - ms->y[s];

			l += 0.5 * w * d * d;
			e->sub[s] = w * d;
		}
		if (grad)
			for (int64_t x = 0; x < cells; x++)
				grad[off + x] += e->sub[map[x]];
	}
	*loss = l;
}

/*
 * mu (set->cells) = total times the clique marginals of theta; returns the
 * loss and, when grad is not NULL, its gradient in mu (set->cells).
 */
static MrfStatus
Evaluate(Estimator *e, const double *theta, double *mu, double *grad, double *loss)
{
	const MrfCliqueSet *set = e->set;
	MrfStatus	status;

	status = MrfBpMarginals(e->bp, theta, mu, NULL);
	if (status != MRF_OK)
		return status;
	e->evaluations++;
	for (int64_t c = 0; c < set->cells; c++)
		mu[c] *= e->total;
	LossAndGradient(e, mu, grad, loss);
	return MRF_OK;
}

/*
 * The largest magnitude a step may give a potential.  When noisy targets
 * lie where no distribution reaches (a negative count, or more than n: a
 * tiny budget over few rows), the loss keeps falling as a potential runs
 * off toward infinity, every step is accepted and the step doubles each
 * time: after some hundreds of steps the potentials overflowed, inference
 * refused them, and AIM failed after the protected path's charge ("internal
 * status 2"; rho 1e-8 over 40 rows of 101 binary columns).  A trial step
 * past this bound is rejected as too long, as one that does not lower the
 * loss is.  2^900 is far beyond any potential a converging estimate holds
 * (exp(-745) already underflows), and sums of potentials over the cliques
 * and their messages stay finite.
 */
#define ESTIMATE_MAX_POTENTIAL 0x1p900

/* See estimate.h. */
MrfStatus
MrfEstimate(const MrfCliqueSet *set, const int *card, const MrfMeasurement *meas,
			int nmeas, int64_t n, const MrfEstimateOptions *opt, const MrfEnv *env,
			double *logpot, MrfEstimateReport *rep)
{
	Estimator	e;
	MrfBpInfo	info;
	double	   *mu = NULL;
	double	   *nu = NULL;
	double	   *grad = NULL;
	double	   *omega = NULL;
	int64_t		cells = set->cells;
	int64_t		largest = 1;
	double		loss;
	double		alpha;
	double		max_precision = 0.0;
	double		stop_below = -1.0;	/* adaptive steps off: never */
	MrfStatus	status;

	memset(&e, 0, sizeof(e));
	memset(rep, 0, sizeof(*rep));
	if (n < 1 || nmeas < 0 || opt->iterations < 0)
		return MRF_EINVAL;
	e.set = set;
	e.card = card;
	e.meas = meas;
	e.nmeas = nmeas;
	e.total = (double) n;
	e.map = MrfAlloc(env, sizeof(int32_t *) * (nmeas + 1));
	e.mcells = MrfAlloc(env, sizeof(int64_t) * (nmeas + 1));
	if (!e.map || !e.mcells)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	for (int m = 0; m < nmeas; m++)
	{
		const MrfMeasurement *ms = &meas[m];
		int			c = ms->clique;
		int			nsup;
		int64_t		mc = 1;

		if (c < 0 || c >= set->m || ms->size < 0 || ms->size > MRF_MEASURE_MAX_VARS)
		{
			status = MRF_EINVAL;
			goto done;
		}
		nsup = set->start[c + 1] - set->start[c];
		for (int i = 0; i < ms->size; i++)
		{
			int			found = 0;

			for (int j = 0; j < nsup; j++)
				found |= set->var[set->start[c] + j] == ms->vars[i];
			if (!found || (i > 0 && ms->vars[i] <= ms->vars[i - 1]))
			{
				status = MRF_EINVAL;
				goto done;
			}
			mc *= card[ms->vars[i]];
		}
		e.mcells[m] = mc;
		largest = mc > largest ? mc : largest;
		e.map[m] = MrfAlloc(env, sizeof(int32_t) * (set->offset[c + 1] - set->offset[c]));
		if (!e.map[m])
		{
			status = MRF_ENOMEM;
			goto done;
		}
		SubsetMap(card, nsup, set->var + set->start[c], ms->size, ms->vars,
				  set->offset[c + 1] - set->offset[c], e.map[m]);
		for (int64_t s = 0; s < mc; s++)
		{
			double		w = ms->precision ? ms->precision[s] : 1.0 / ms->sigma2;

			if (!isfinite(w) || w < 0.0)
			{
				status = MRF_EINVAL;
				goto done;
			}
			max_precision = fmax(max_precision, w);
		}
	}
	e.sub = MrfAlloc(env, sizeof(double) * largest);
	mu = MrfAlloc(env, sizeof(double) * (cells + 1));
	nu = MrfAlloc(env, sizeof(double) * (cells + 1));
	grad = MrfAlloc(env, sizeof(double) * (cells + 1));
	omega = MrfAlloc(env, sizeof(double) * (cells + 1));
	if (!e.sub || !mu || !nu || !grad || !omega)
	{
		status = MRF_ENOMEM;
		goto done;
	}
	status = MrfBpBuild(set, &opt->bp, env, &e.bp);
	if (status != MRF_OK)
		goto done;
	MrfBpGetInfo(e.bp, &info);
	rep->exact = info.exact;

	if (!opt->warm_start)
		memset(logpot, 0, sizeof(double) * cells);
	status = Evaluate(&e, logpot, mu, grad, &loss);
	if (status != MRF_OK)
		goto done;
	rep->loss_start = loss;

	/*
	 * The loss's curvature along theta is at most total x the largest
	 * precision (a marginal moves by at most total per unit of theta), so
	 * 1 / (total max_precision) is a safe first step; the line search
	 * doubles it at every step and halves it until the decrease is at least
	 * half the linear prediction (Armijo), as Private-PGM does.
	 */
	alpha = max_precision > 0.0 ? 1.0 / (e.total * max_precision) : 1.0;
	if (opt->stop_fraction > 0.0)
		stop_below = opt->stop_fraction * fmax(loss - opt->prior_loss, 1.0);
	for (int t = 0; t < opt->iterations && max_precision > 0.0; t++)
	{
		double		new_loss = loss;
		double		before = loss;
		int			accepted = 0;

		memcpy(omega, logpot, sizeof(double) * cells);
		memcpy(nu, mu, sizeof(double) * cells);
		alpha *= 2.0;
		for (int ls = 0; ls < 30; ls++)
		{
			double		predicted = 0.0;
			int			bounded = 1;

			for (int64_t c = 0; c < cells; c++)
			{
				logpot[c] = omega[c] - alpha * grad[c];
				/* NaN fails this too */
				bounded &= fabs(logpot[c]) <= ESTIMATE_MAX_POTENTIAL;
			}
			if (!bounded)
			{
				alpha *= 0.5;
				continue;
			}
			status = Evaluate(&e, logpot, mu, NULL, &new_loss);
			if (status != MRF_OK)
				goto done;
			for (int64_t c = 0; c < cells; c++)
				predicted += grad[c] * (nu[c] - mu[c]);
			if (loss - new_loss >= 0.5 * predicted && new_loss <= loss)
			{
				accepted = 1;
				break;
			}
			alpha *= 0.5;
		}
		if (!accepted)
		{
			/* no step decreases the loss: the estimate is optimal to rounding */
			memcpy(logpot, omega, sizeof(double) * cells);
			memcpy(mu, nu, sizeof(double) * cells);
			break;
		}
		/*
		 * The accepted trial's mu is the marginal of logpot: exact inference
		 * returns the same table again, so only the gradient is computed
		 * (the same loss and gradient, without a second inference).  Loopy
		 * BP restarts from its last messages, so it infers again.
		 */
		if (info.exact)
			LossAndGradient(&e, mu, grad, &loss);
		else
		{
			status = Evaluate(&e, logpot, mu, grad, &loss);
			if (status != MRF_OK)
				goto done;
		}
		rep->iterations = t + 1;
		if (opt->progress_total > 0)
			MrfPoll(env, opt->progress_base + t + 1, opt->progress_total);
		else
			MrfPoll(env, t + 1, opt->iterations);
		if (before - loss < stop_below)
			break;
	}
	rep->loss = loss;
	rep->evaluations = e.evaluations;
done:
	if (e.bp)
		MrfBpFree(e.bp);
	for (int m = 0; e.map && m < nmeas; m++)
		MrfFree(env, e.map[m]);
	MrfFree(env, e.map);
	MrfFree(env, e.mcells);
	MrfFree(env, e.sub);
	MrfFree(env, mu);
	MrfFree(env, nu);
	MrfFree(env, grad);
	MrfFree(env, omega);
	return status;
}

/* See estimate.h. */
void
MrfCompressRare(int p, const int *card, const int *oneoff, const double *y1, double sigma,
				int *map, int *ccard, int *rare)
{
	for (int i = 0; i < p; i++)
	{
		const double *y = y1 + oneoff[i];
		int		   *mp = map + oneoff[i];
		int			kept = 0;
		int			best = 0;

		for (int a = 0; a < card[i]; a++)
		{
			if (y[a] > y[best])
				best = a;
			kept += y[a] >= 3.0 * sigma;
		}
		if (kept >= card[i] - 1)
		{
			/* nothing, or a single value, to merge: keep the alphabet */
			for (int a = 0; a < card[i]; a++)
				mp[a] = a;
			ccard[i] = card[i];
			rare[i] = 0;
			continue;
		}
		/* mp[a] = 1: kept (the largest noisy value when none clears 3 sigma) */
		for (int a = 0; a < card[i]; a++)
			mp[a] = y[a] >= 3.0 * sigma || (kept == 0 && a == best);
		kept = 0;
		for (int a = 0; a < card[i]; a++)
			mp[a] = mp[a] ? kept++ : -1;
		for (int a = 0; a < card[i]; a++)
			if (mp[a] < 0)
				mp[a] = kept;
		ccard[i] = kept + 1;
		rare[i] = card[i] - kept;
	}
}
