/*
 * driver/alphabets.h - a column's alphabet from the schema (its CHECK
 * constraints), public like its type.
 */
#ifndef MRF_PG_ALPHABETS_H
#define MRF_PG_ALPHABETS_H

#include "postgres.h"

#include "access/attnum.h"

/*
 * The values the validated CHECK constraints of relation relid (InvalidOid:
 * none) on column attnum, and those of its type typid when a domain, allow:
 * an IN list (in its order) or integer bounds on both sides (BETWEEN).
 * NULL with *n = 0 when they fix none; NULL with *n > 255 when a range is
 * too wide to list.  Reads the catalog only.
 */
char	  **MrfCheckAlphabet(Oid relid, AttrNumber attnum, Oid typid, int *n);

#endif
