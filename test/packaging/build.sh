#!/usr/bin/env bash
# TAP: the build as a PGXS user expects it: plain `make` builds the library
# (the default goal is PGXS's all, which links mrfdp.so and assembles the
# install script), and objects track the headers they include (-MMD), so a
# header change rebuilds its includers, not the whole library.
# prove --exec bash test/packaging/*.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0
. test/dump/tap.bash
echo "1..3"
pgc=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
goal=$(make -p -n PG_CONFIG="$pgc" 2>/dev/null | sed -n 's/^\.DEFAULT_GOAL := //p')
is "$goal" "all" "plain make's goal is PGXS's all"
make -n -B PG_CONFIG="$pgc" 2>/dev/null | grep -- '-o mrfdp.so' >/dev/null
ok $? "plain make links mrfdp.so"
# Touch a header few objects include and list what make would recompile
# (dry run).
tmp=$(mktemp -d)
git ls-files -z | xargs -0 tar cf - 2>/dev/null | tar xf - -C "$tmp"
if make -s -C "$tmp" PG_CONFIG="$pgc" -j"$(nproc)" >/dev/null 2>&1; then
	touch "$tmp/src/pg/ledger/decimal.h"
	rebuilt=$(make -n -C "$tmp" PG_CONFIG="$pgc" 2>/dev/null | grep -oE -- '-o [^ ]+\.o' | sed 's/^-o //' | sort -u)
	users=$(cd "$tmp" && grep -rl '"pg/ledger/decimal.h"' src --include='*.c' | sed 's/\.c$/.o/' | sort -u)
	all=$(cd "$tmp" && find src -name '*.c' | wc -l)
	missed=$(comm -23 <(echo "$users") <(echo "$rebuilt"))
	[ -n "$users" ] && [ -z "$missed" ] && [ "$(echo "$rebuilt" | wc -l)" -lt "$all" ]
	ok $? "touching a header rebuilds the objects that include it ($(echo "$users" | wc -l)) and not all $all${missed:+; missed: $missed}"
else
	ok 1 "touching a header rebuilds exactly the objects that include it (the build failed)"
fi
rm -rf "$tmp"
