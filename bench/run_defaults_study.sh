#!/bin/sh
# The defaults study of issue 10: runs bench_defaults over the committed
# grids, writes the raw fits to bench/defaults/*.tsv and the README's
# Markdown tables to defaults/tables.md (defaults_table.py).  About 45
# minutes of one core in all (Ising 30, the structure studies 15); it runs
# under nice.  GRID=tiny checks the pipeline in a minute.
set -e
cd "$(dirname "$0")"
make -s bench_defaults
GRID=${GRID:-full}
OUT=${OUT:-defaults}
mkdir -p "$OUT"
run() {
	name=$1
	shift
	nice ./bench_defaults --grid "$GRID" "$@" > "$OUT/$name.tsv.part"
	mv "$OUT/$name.tsv.part" "$OUT/$name.tsv"
}
run ising --study ising
run pairwise --study pairwise
run twise --study twise
run structure --study structure --families grid,grid3,random
run structure-chain --study structure --families chain
run structure-kary --study structure-kary
/usr/bin/python3 defaults_table.py "$OUT" > "$OUT/tables.md"
echo "wrote $OUT/tables.md"
