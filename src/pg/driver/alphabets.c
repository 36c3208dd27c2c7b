/*
 * driver/alphabets.c - a column's alphabet from the schema: the values its
 * CHECK constraints allow (IN lists and integer bounds such as BETWEEN), on
 * the table and on the column's domain type.
 *
 * A constraint is a declaration in the catalog, public like the column's
 * type: reading it reads no row, so the alphabet it gives is as public as an
 * enum's labels (docs/privacy.md, "What is public").  Only plain shapes are
 * read, each operator checked to be the btree equality or comparison of
 * its type's built-in family, and only constants written in the constraint
 * (no function is evaluated: a constraint is its owner's code).  Anything
 * else in a constraint (OR, other columns, other operators) gives nothing:
 * the alphabet is then what the options declare.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "pg/driver/alphabets.h"
#include "pg/sqlapi/options.h"

/* What the constraints say about one column. */
typedef struct CheckFacts
{
	AttrNumber	attnum;			/* the table's column, or 0: a domain's VALUE */
	Oid			base;			/* the column's base type */
	bool		has_lo;
	bool		has_hi;
	int64		lo;				/* integer bounds, inclusive */
	int64		hi;
	List	   *values;			/* an IN list's labels (char *), in order */
	bool		has_values;
} CheckFacts;

static bool
IsIntegerType(Oid typid)
{
	return typid == INT2OID || typid == INT4OID || typid == INT8OID;
}

/*
 * The default btree family of one of the base types an alphabet is declared
 * for (integers, text, varchar, character, "char"), or InvalidOid.
 */
static Oid
FamilyOf(Oid base)
{
	if (!IsIntegerType(base) && base != TEXTOID && base != VARCHAROID &&
		base != BPCHAROID && base != CHAROID)
		return InvalidOid;
	return lookup_type_cache(base, TYPECACHE_BTREE_OPFAMILY)->btree_opf;
}

/*
 * n under binary-compatible casts: of a value (varchar to text), or of an
 * array whose elements are so cast (varchar[] to text[], as an IN list of a
 * varchar column is written).
 */
static Node *
StripRelabel(Node *n)
{
	for (;;)
	{
		if (n != NULL && IsA(n, RelabelType))
			n = (Node *) ((RelabelType *) n)->arg;
		else if (n != NULL && IsA(n, ArrayCoerceExpr) &&
				 IsA(((ArrayCoerceExpr *) n)->elemexpr, RelabelType) &&
				 IsA(((RelabelType *) ((ArrayCoerceExpr *) n)->elemexpr)->arg, CaseTestExpr))
			n = (Node *) ((ArrayCoerceExpr *) n)->arg;
		else
			return n;
	}
}

/* Whether n is the constrained column (under binary-compatible casts). */
static bool
IsSubject(Node *n, const CheckFacts *f)
{
	n = StripRelabel(n);
	if (n == NULL)
		return false;
	if (f->attnum == 0)
		return IsA(n, CoerceToDomainValue);
	return IsA(n, Var) && ((Var *) n)->varattno == f->attnum && ((Var *) n)->varlevelsup == 0;
}

/* The label of a non-null constant as the column's type writes it, or NULL. */
static char *
ConstLabel(Const *c, Oid base)
{
	Oid			out;
	bool		varlena;
	char	   *text;

	if (c->constisnull)
		return NULL;
	if (IsIntegerType(base))
	{
		if (c->consttype == INT2OID)
			return psprintf("%d", (int) DatumGetInt16(c->constvalue));
		if (c->consttype == INT4OID)
			return psprintf("%d", DatumGetInt32(c->constvalue));
		if (c->consttype == INT8OID)
			return psprintf(INT64_FORMAT, DatumGetInt64(c->constvalue));
		return NULL;
	}
	if (FamilyOf(c->consttype) != FamilyOf(base) && !(base == BPCHAROID && c->consttype == TEXTOID))
		return NULL;
	getTypeOutputInfo(c->consttype, &out, &varlena);
	text = OidOutputFunctionCall(out, c->constvalue);
	if (base == BPCHAROID)
	{
		int			len = strlen(text);

		while (len > 0 && text[len - 1] == ' ')
			text[--len] = '\0';
	}
	return text;
}

/* An integer constant's value. */
static bool
ConstInteger(Node *n, int64 *v)
{
	Const	   *c;

	n = StripRelabel(n);
	if (n == NULL || !IsA(n, Const) || ((Const *) n)->constisnull)
		return false;
	c = (Const *) n;
	if (c->consttype == INT2OID)
		*v = DatumGetInt16(c->constvalue);
	else if (c->consttype == INT4OID)
		*v = DatumGetInt32(c->constvalue);
	else if (c->consttype == INT8OID)
		*v = DatumGetInt64(c->constvalue);
	else
		return false;
	return true;
}

/* The labels of an IN list's array: a constant array or ARRAY[constants]. */
static List *
ArrayLabels(Node *n, Oid base)
{
	List	   *labels = NIL;

	n = StripRelabel(n);
	if (n != NULL && IsA(n, ArrayExpr))
	{
		ListCell   *lc;

		foreach(lc, ((ArrayExpr *) n)->elements)
		{
			Node	   *e = StripRelabel(lfirst(lc));
			char	   *label;

			if (e == NULL || !IsA(e, Const) || (label = ConstLabel((Const *) e, base)) == NULL)
				return NIL;
			labels = lappend(labels, label);
		}
		return labels;
	}
	if (n != NULL && IsA(n, Const) && !((Const *) n)->constisnull)
	{
		Const	   *c = (Const *) n;
		ArrayType  *arr = DatumGetArrayTypeP(c->constvalue);
		Oid			elem = ARR_ELEMTYPE(arr);
		int16		typlen;
		bool		typbyval;
		char		typalign;
		Datum	   *elems;
		bool	   *nulls;
		int			count;

		get_typlenbyvalalign(elem, &typlen, &typbyval, &typalign);
		deconstruct_array(arr, elem, typlen, typbyval, typalign, &elems, &nulls, &count);
		for (int i = 0; i < count; i++)
		{
			Const	   *e;
			char	   *label;

			if (nulls[i])
				return NIL;
			e = makeConst(elem, -1, InvalidOid, typlen, elems[i], false, typbyval);
			if ((label = ConstLabel(e, base)) == NULL)
				return NIL;
			labels = lappend(labels, label);
		}
	}
	return labels;
}

/* Keeps, of f's IN list, the labels also in labels (a second IN list). */
static void
MeetValues(CheckFacts *f, List *labels)
{
	List	   *kept = NIL;
	ListCell   *a;

	if (!f->has_values)
	{
		f->values = labels;
		f->has_values = true;
		return;
	}
	foreach(a, f->values)
	{
		ListCell   *b;

		foreach(b, labels)
			if (strcmp(lfirst(a), lfirst(b)) == 0)
			{
				kept = lappend(kept, lfirst(a));
				break;
			}
	}
	f->values = kept;
}

/* Reads one conjunct of a constraint: column op constant, or column = ANY (array). */
static void
Collect(Node *n, CheckFacts *f)
{
	Oid			family = FamilyOf(f->base);

	if (n == NULL)
		return;
	if (IsA(n, List))
	{
		ListCell   *lc;

		foreach(lc, (List *) n)
			Collect(lfirst(lc), f);
		return;
	}
	if (IsA(n, BoolExpr) && ((BoolExpr *) n)->boolop == AND_EXPR)
	{
		Collect((Node *) ((BoolExpr *) n)->args, f);
		return;
	}
	if (IsA(n, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) n;
		List	   *labels;

		if (!sa->useOr || list_length(sa->args) != 2 || !IsSubject(linitial(sa->args), f) ||
			get_op_opfamily_strategy(sa->opno, family) != BTEqualStrategyNumber)
			return;
		labels = ArrayLabels(lsecond(sa->args), f->base);
		if (labels != NIL)
			MeetValues(f, labels);
		return;
	}
	if (IsA(n, OpExpr) && list_length(((OpExpr *) n)->args) == 2 && IsIntegerType(f->base))
	{
		OpExpr	   *op = (OpExpr *) n;
		int			strategy = get_op_opfamily_strategy(op->opno, family);
		int64		v;
		bool		flipped;

		if (IsSubject(linitial(op->args), f) && ConstInteger(lsecond(op->args), &v))
			flipped = false;
		else if (IsSubject(lsecond(op->args), f) && ConstInteger(linitial(op->args), &v))
			flipped = true;
		else
			return;
		if (flipped)
			strategy = strategy == BTLessStrategyNumber ? BTGreaterStrategyNumber :
				strategy == BTLessEqualStrategyNumber ? BTGreaterEqualStrategyNumber :
				strategy == BTGreaterStrategyNumber ? BTLessStrategyNumber :
				strategy == BTGreaterEqualStrategyNumber ? BTLessEqualStrategyNumber : strategy;
		switch (strategy)
		{
			case BTGreaterStrategyNumber:
				if (v == PG_INT64_MAX)
					return;
				v++;
				/* FALLTHROUGH */
			case BTGreaterEqualStrategyNumber:
				f->lo = f->has_lo ? Max(f->lo, v) : v;
				f->has_lo = true;
				break;
			case BTLessStrategyNumber:
				if (v == PG_INT64_MIN)
					return;
				v--;
				/* FALLTHROUGH */
			case BTLessEqualStrategyNumber:
				f->hi = f->has_hi ? Min(f->hi, v) : v;
				f->has_hi = true;
				break;
			case BTEqualStrategyNumber:
				MeetValues(f, list_make1(psprintf(INT64_FORMAT, v)));
				break;
			default:
				break;
		}
	}
}

/*
 * The alphabet the CHECK constraints give column attnum of relation relid
 * (InvalidOid: none) whose type is typid: the constraints of the table that
 * are validated, and those of typid when it is a domain.  An IN list gives
 * its values in its order (values outside integer bounds dropped); integer
 * bounds on both sides give lo, lo + 1, ..., hi; a value listed twice is
 * listed once.  Returns the labels, or
 * NULL with *n = 0 when the constraints fix no alphabet; *n may exceed MRF_MAX_ALPHABET,
 * which the caller refuses, naming the column.
 */
char	  **
MrfCheckAlphabet(Oid relid, AttrNumber attnum, Oid typid, int *n)
{
	CheckFacts	f;
	char	  **labels;

	memset(&f, 0, sizeof(f));
	f.base = getBaseType(typid);
	*n = 0;
	if (!OidIsValid(FamilyOf(f.base)))
		return NULL;
	if (OidIsValid(relid) && get_rel_relkind(relid) != RELKIND_COMPOSITE_TYPE)
	{
		Relation	rel = table_open(relid, AccessShareLock);
		TupleConstr *constr = RelationGetDescr(rel)->constr;

		f.attnum = attnum;
		for (int c = 0; constr != NULL && c < constr->num_check; c++)
			if (constr->check[c].ccvalid)
				Collect(stringToNode(constr->check[c].ccbin), &f);
		table_close(rel, AccessShareLock);
	}
	if (get_typtype(typid) == TYPTYPE_DOMAIN)
	{
		/* in the context, whose reset callback releases it (not on the stack) */
		DomainConstraintRef *ref = palloc0(sizeof(DomainConstraintRef));
		ListCell   *lc;

		InitDomainConstraintRef(typid, ref, CurrentMemoryContext, false);
		f.attnum = 0;
		foreach(lc, ref->constraints)
		{
			DomainConstraintState *con = lfirst(lc);

			if (con->constrainttype == DOM_CONSTRAINT_CHECK)
				Collect((Node *) con->check_expr, &f);
		}
	}
	if (f.has_values)
	{
		ListCell   *lc;
		int			i = 0;

		labels = palloc(sizeof(char *) * Max(list_length(f.values), 1));
		foreach(lc, f.values)
		{
			int64		v;

			bool		again = false;

			/* integer bounds narrow an IN list */
			if (IsIntegerType(f.base) &&
				sscanf(lfirst(lc), INT64_FORMAT, &v) == 1 &&
				((f.has_lo && v < f.lo) || (f.has_hi && v > f.hi)))
				continue;
			/*
			 * a value listed twice (IN (1, 1, 2); 'x' and 'x  ' of a
			 * character column) is one value: one code, as domains requires
			 */
			for (int j = 0; j < i && !again; j++)
				again = strcmp(labels[j], lfirst(lc)) == 0;
			if (!again)
				labels[i++] = lfirst(lc);
		}
		*n = i;
		return i > 0 ? labels : NULL;
	}
	if (f.has_lo && f.has_hi && f.hi >= f.lo)
	{
		/* the count, even when too large to list (the caller refuses it) */
		double		count = (double) f.hi - (double) f.lo + 1;

		if (count > MRF_MAX_ALPHABET)
		{
			*n = count > INT_MAX ? INT_MAX : (int) count;
			return NULL;
		}
		*n = (int) count;
		labels = palloc(sizeof(char *) * *n);
		for (int i = 0; i < *n; i++)
			labels[i] = psprintf(INT64_FORMAT, f.lo + i);
		return labels;
	}
	return NULL;
}
