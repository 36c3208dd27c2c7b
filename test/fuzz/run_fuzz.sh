#!/usr/bin/env bash
# Coverage-guided fuzzing of mrfdp's parsers inside a real backend (libFuzzer).
#
#   test/fuzz/run_fuzz.sh [seconds per target] [target ...]
#   test/fuzz/run_fuzz.sh --merge [target ...]     minimise the committed corpus
#                                                  (regression-* inputs are kept)
#   test/fuzz/run_fuzz.sh --replay FILE target     run one input (e.g. a crash)
#
# Targets: model options cliques mrf_options ising (all by default; see
# test/fuzz/fuzz_driver.c).  Run as root on Debian 12: it installs clang-14 and
# its sanitizer runtimes with apt, builds a fuzzing variant of the extension
# (clang, -fsanitize=fuzzer-no-link,address,undefined, plus the driver) from a
# copy of the tree into a staged directory, and runs each target in
# `postgres --single` as the postgres user with AddressSanitizer preloaded.
# New inputs go to $MRFDP_FUZZ_WORK/corpus/<target> (the committed corpus in
# test/fuzz/corpus/<target> seeds every run); crashes and findings to
# $MRFDP_FUZZ_WORK/artifacts/<target>.  Prints executions, coverage and
# findings per target.  Exits non-zero when a target found something.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${MRFDP_FUZZ_WORK:-/tmp/mrfdp-fuzz}
all_targets=(model options cliques mrf_options ising)
pgbin=/usr/lib/postgresql/15/bin
llvm=/usr/lib/llvm-14
rt=$(echo $llvm/lib/clang/*/lib/linux)
asan_rt=$rt/libclang_rt.asan-x86_64.so

mode=fuzz
secs=60
case "${1:-}" in
	--merge) mode=merge; shift ;;
	--replay) mode=replay; replay_file=$(readlink -f "$2"); shift 2 ;;
	'' | -*) ;;
	*) secs=$1; shift ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# Debian packages: the compiler and its sanitizer/libFuzzer runtimes.
need=()
for p in clang-14 libclang-rt-14-dev postgresql-server-dev-15 libopenblas-dev pkg-config; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "installing: ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The fuzz build: a copy of the tree (objects of the normal build are never
# touched) with the driver added as one more source file.
build=$work/build
dest=$work/dest
mkdir -p "$work"
rm -rf "$build"
mkdir -p "$build"
(cd "$repo" && tar cf - Makefile mk mrfdp.control src sql test/regress) | tar xf - -C "$build"
find "$build" -name '*.o' -o -name '*.so' -o -name '*.bc' | xargs -r rm -f
cp "$repo/test/fuzz/fuzz_driver.c" "$build/src/pg/zz_fuzz_driver.c"
wraps="-Dpalloc=MrfFuzzPalloc -Dpalloc0=MrfFuzzPalloc0 -Dpalloc_extended=MrfFuzzPallocExtended
	-Drepalloc=MrfFuzzRepalloc -Drepalloc_huge=MrfFuzzRepallocHuge -Dpfree=MrfFuzzPfree
	-DMemoryContextAlloc=MrfFuzzMemoryContextAlloc -DMemoryContextAllocZero=MrfFuzzMemoryContextAllocZero
	-DMemoryContextAllocHuge=MrfFuzzMemoryContextAllocHuge
	-DMemoryContextAllocExtended=MrfFuzzMemoryContextAllocExtended"
sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-sanitize=function,vptr"
cflags="-O1 -g -fno-omit-frame-pointer -fPIC -fno-strict-aliasing -fwrapv -Wno-unused-command-line-argument
	-Wno-compound-token-split-by-macro -Wno-ignored-attributes $sanitize $wraps"
openblas=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
# as the Makefile links oneDNN when its header is there (the build then calls it)
dnnl=$(test -f /usr/include/dnnl.h && echo "-ldnnl -lgomp" || true)
makevars=(PG_CONFIG=$pgbin/pg_config CC=clang-14 with_llvm=no "CFLAGS=$(echo $cflags)"
	"SHLIB_LINK=$openblas $dnnl -lpthread -lm $sanitize -shared-libasan -Wl,-Bsymbolic $rt/libclang_rt.fuzzer_no_main-x86_64.a -lstdc++")
echo "== building the fuzz variant in $build"
make -s -C "$build" "${makevars[@]}" -j2 >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }
rm -rf "$dest"
make -s -C "$build" "${makevars[@]}" install DESTDIR="$dest" >>"$work/build.log" 2>&1
nm -D "$dest"/usr/lib/postgresql/15/lib/mrfdp.so >"$work/symbols.txt"
grep -q ' T LLVMFuzzerRunDriver$' "$work/symbols.txt" || { echo "libFuzzer is not linked into the fuzz build"; exit 1; }

# AddressSanitizer is preloaded into the uninstrumented postgres binary.  Its
# runtime initialises lazily at the first malloc, which on Debian 12 happens
# inside a library constructor holding glibc's gettext lock (libgpg-error's
# bindtextdomain), and deadlocks (dlsym -> dlerror -> dcgettext).  A tiny
# preloaded object marked initfirst initialises it before any constructor.
cat >"$work/asan_early.c" <<'EOF'
extern void __asan_init(void);
__attribute__((constructor)) static void AsanEarly(void) { __asan_init(); }
EOF
clang-14 -shared -fPIC -Wl,-z,initfirst -o "$work/asan_early.so" "$work/asan_early.c" "$asan_rt"
preload="$asan_rt:$work/asan_early.so"
# The preloaded runtime also defines (empty, weak) coverage callbacks: the
# fuzz build links with -Bsymbolic so its code reaches its own libFuzzer.

# One backend (run as postgres): backend.sh DATADIR TARGET ARGV0 [libFuzzer
# arguments]: (re)creates the extension, then runs mrf_fuzz(TARGET, ARGV).
cat >"$work/backend.sh" <<EOF
#!/bin/bash
data=\$1 target=\$2
shift 2
arr="ARRAY["
sep=
for a in "\$@"; do arr+="\$sep'\${a//\\'/\\'\\'}'"; sep=", "; done
arr+="]"
exec $pgbin/postgres --single -D "\$data" -c "extension_destdir=$dest" \\
	-c "dynamic_library_path=$dest/usr/lib/postgresql/15/lib:\\\$libdir" \\
	-c client_min_messages=warning -c log_min_messages=fatal -c max_stack_depth=4MB \\
	-c mrfdp.progress=off postgres <<SQL
DROP EXTENSION IF EXISTS mrfdp CASCADE
CREATE EXTENSION mrfdp
CREATE FUNCTION mrf_fuzz(text, text[]) RETURNS int AS 'mrfdp', 'mrf_fuzz' LANGUAGE C STRICT
SELECT mrf_fuzz('\$target', \$arr)
SQL
EOF
# libFuzzer's -merge=1 runs its argv[0] for the inner passes (as a crash
# guard): this runs them in a backend of a second cluster.
cat >"$work/merge_inner.sh" <<EOF
#!/bin/bash
exec "$work/backend.sh" "$work/data-inner" "\$MRFDP_FUZZ_TARGET" mrf_fuzz "\$@"
EOF
chmod 755 "$work/backend.sh" "$work/merge_inner.sh"

# Throwaway clusters for single-user backends, owned by postgres.
for data in "$work/data" "$work/data-inner"; do
	if [ ! -f "$data/PG_VERSION" ]; then
		rm -rf "$data"
		install -d -o postgres -g postgres "$data"
		runuser -u postgres -- $pgbin/initdb -D "$data" -E UTF8 --locale=C -A trust >"$work/initdb.log"
	fi
done
data=$work/data
chown -R postgres:postgres "$work"
chmod 755 "$work"

# LeakSanitizer runs after every input that mallocs more than it frees; two
# allocations the postgres binary makes at startup and never frees are not
# the extension's.
cat >"$work/lsan.supp" <<EOF
leak:save_ps_display_args
leak:process_postgres_switches
EOF

# backend TARGET LOG ARGV0 [libFuzzer arguments], with the sanitizers preloaded.
backend() {
	local target=$1 log=$2
	shift 2
	runuser -u postgres -- env -C "$work/artifacts/$target" \
		LD_PRELOAD="$preload" MRFDP_FUZZ_TARGET="$target" MRFDP_FUZZ_ARTIFACTS="$work/artifacts/$target" \
		ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=${MRFDP_FUZZ_LEAKS:-1}:leak_check_at_exit=0:abort_on_error=1:allocator_may_return_null=1:handle_abort=1" \
		UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
		LSAN_OPTIONS="suppressions=$work/lsan.supp:print_suppressions=0" \
		"$work/backend.sh" "$data" "$target" "$@" >"$log" 2>&1 || true
}

dict=$repo/test/fuzz/json.dict
common=(-dict="$dict" -max_len=8192 -rss_limit_mb=6144 -malloc_limit_mb=2048 -timeout=30
	-print_final_stats=1 -use_value_profile=1)
crash_re='==mrf_fuzz== FINDING|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|ERROR: libFuzzer'
status=0
for t in "${targets[@]}"; do
	seeds=$repo/test/fuzz/corpus/$t
	mkdir -p "$work/corpus/$t" "$work/artifacts/$t" "$work/logs"
	chown -R postgres:postgres "$work/corpus" "$work/artifacts"
	log=$work/logs/$t.log
	case $mode in
	fuzz)
		# A finding ends libFuzzer: report it, then go on fuzzing for the time left.
		echo "== fuzzing $t for ${secs}s (log: $log)"
		: >"$log"
		started=$(date +%s)
		runs=0 found=0 part=0
		while left=$((started + secs - $(date +%s))); [ "$left" -ge 5 ]; do
			part=$((part + 1))
			backend "$t" "$log.$part" mrf_fuzz "${common[@]}" -max_total_time="$left" \
				-artifact_prefix="$work/artifacts/$t/" "$work/corpus/$t" "$seeds"
			cat "$log.$part" >>"$log" && rm -f "$log.$part"
			# no libFuzzer banner: the backend failed before fuzzing (say, mrfdp.so did not load)
			if ! grep -q '^INFO: Seed: ' "$log"; then
				echo "   the backend did not start libFuzzer; the end of its output:"
				tail -n 20 "$log" | sed 's/^/     /'
				status=1
				break
			fi
			n=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n1)
			runs=$((runs + ${n:-0}))
			if tail -n 40 "$log" | grep -qE '^Done [0-9]+ runs'; then
				break
			fi
			found=$((found + 1))
			echo "   finding $found:"
			grep -E -A8 "$crash_re" "$log" | tail -n 40 | sed 's/^/     /' | head -n 24
			grep -E 'Test unit written to' "$log" | tail -n1 | sed 's/^/     /'
		done
		cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n1 || true)
		corpus=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -n1 || true)
		echo "   $t: $runs executions in $(($(date +%s) - started)) s; ${cov:-no coverage line}; ${corpus}; findings: $found"
		[ "$found" -eq 0 ] || status=1
		;;
	merge)
		# Minimise: the committed seeds and everything found since, into a fresh set.
		echo "== minimising the corpus of $t (log: $log)"
		rm -rf "$work/merged/$t" && install -d -o postgres "$work/merged" "$work/merged/$t"
		# Edge coverage only (no value profile): a smaller set to commit.
		backend "$t" "$log" "$work/merge_inner.sh" "${common[@]}" -use_value_profile=0 -merge=1 \
			"$work/merged/$t" "$seeds" "$work/corpus/$t"
		if grep -qE 'MERGE-OUTER: [0-9]+ new files' "$log" && [ -n "$(ls "$work/merged/$t")" ]; then
			# Inputs of fixed findings (regression-*) stay whatever they cover.
			find "$seeds" -maxdepth 1 -type f ! -name 'regression-*' -delete
			cp "$work/merged/$t"/* "$seeds"/
			echo "   $t: $(ls "$seeds" | wc -l) inputs, $(cat "$seeds"/* | wc -c) bytes in $seeds"
		else
			status=1
			tail -n 20 "$log"
		fi
		;;
	replay)
		echo "== replaying $replay_file on $t"
		backend "$t" "$log" mrf_fuzz "${common[@]}" -runs=1 "$replay_file"
		cat "$log"
		grep -qE "$crash_re" "$log" && status=1
		;;
	esac
done
exit $status
