/*
 * ledger/decimal.c - exact decimal texts of doubles: the ledger sums and compares
 * charges and caps as numeric from these texts, so nothing is lost to
 * rounding (MrfDoubleText in model/model.c writes the shortest text that reads
 * back, for documents).
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "pg/ledger/decimal.h"

/*
 * Writes the exact decimal expansion of a finite double >= 0: x = m 2^e with
 * integer m, and for e < 0, m 2^e = m 5^-e / 10^-e, so the digits of m 5^-e
 * with the point moved -e places are exact.  Charges and caps are summed and
 * compared as numeric from these texts, so nothing is lost to rounding.
 */
void
MrfExactDecimal(char *buf, size_t len, double x)
{
	uint8	   *digits;			/* little-endian decimal digits */
	int			ndigits = 1;
	int			exp2;
	int			e;
	uint64		m;
	int			pos = 0;

	if (!(x > 0) || isinf(x))
	{
		strlcpy(buf, "0", len);
		return;
	}
	m = (uint64) ldexp(frexp(x, &exp2), 53);
	e = exp2 - 53;
	digits = palloc0(1200);
	/* digits = m */
	ndigits = 0;
	while (m > 0)
	{
		digits[ndigits++] = (uint8) (m % 10);
		m /= 10;
	}
	/* multiply by 2^e (e >= 0) or 5^-e (e < 0) */
	for (int step = 0; step < (e >= 0 ? e : -e); step++)
	{
		int			carry = 0;
		int			factor = e >= 0 ? 2 : 5;

		for (int i = 0; i < ndigits; i++)
		{
			int			v = digits[i] * factor + carry;

			digits[i] = (uint8) (v % 10);
			carry = v / 10;
		}
		if (carry > 0)
			digits[ndigits++] = (uint8) carry;
	}
	/* print with the point -e places from the right when e < 0 */
	{
		int			scale = e < 0 ? -e : 0;
		int			intdigits = ndigits - scale;

		if (intdigits <= 0)
		{
			buf[pos++] = '0';
			buf[pos++] = '.';
			for (int i = 0; i < -intdigits && pos < (int) len - 2; i++)
				buf[pos++] = '0';
			for (int i = ndigits - 1; i >= 0 && pos < (int) len - 1; i--)
				buf[pos++] = (char) ('0' + digits[i]);
		}
		else
		{
			for (int i = ndigits - 1; i >= 0 && pos < (int) len - 2; i--)
			{
				buf[pos++] = (char) ('0' + digits[i]);
				if (i == scale && scale > 0)
					buf[pos++] = '.';
			}
		}
	}
	if (pos >= (int) len - 1)
		elog(ERROR, "exact decimal does not fit its buffer");
	buf[pos] = '\0';
	pfree(digits);
}

PG_FUNCTION_INFO_V1(mrf_ledger_exact_numeric);
/* The exact value of a float8 as numeric (float8::numeric rounds to 15 digits). */
Datum
mrf_ledger_exact_numeric(PG_FUNCTION_ARGS)
{
	double		x = PG_GETARG_FLOAT8(0);
	char		buf[MRF_EXACT_DECIMAL_LEN];

	if (!(x >= 0) || isinf(x))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("only finite non-negative amounts are exact ledger values")));
	MrfExactDecimal(buf, sizeof(buf), x);
	PG_RETURN_DATUM(DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}
