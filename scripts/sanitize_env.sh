#!/usr/bin/env bash
# Prepares DIR for a throwaway server that runs a SANITIZE=1 build (see
# src/README.md, "Sanitizers"): DIR/environment, the server's environment
# (MRFDP_SERVER_ENV, scripts/pg_options.sh), which preloads GCC's ASan and
# UBSan runtimes into the uninstrumented postgres binary, and DIR/log, for
# the server's log (MRFDP_SERVER_LOG_DIR), where the reports go: a backend
# writes them to its stderr (their log_path option is not honoured there).
# Usage: scripts/sanitize_env.sh DIR
set -euo pipefail
dir=$(mkdir -p "${1:?usage: scripts/sanitize_env.sh DIR}" && cd "$1" && pwd)
asan=$(gcc -print-file-name=libasan.so)
ubsan=$(gcc -print-file-name=libubsan.so)
[ -e "$asan" ] && [ -e "$ubsan" ] || { echo "GCC's libasan or libubsan is missing" >&2; exit 1; }
# ASan's runtime starts at the first malloc, which on Debian 12 comes inside
# a library constructor holding glibc's gettext lock (libgpg-error's
# bindtextdomain), and deadlocks; an object marked initfirst starts it before
# any constructor (as test/fuzz/run_fuzz.sh does for clang's runtime).
cat >"$dir/asan_early.c" <<'C'
extern void __asan_init(void);
__attribute__((constructor)) static void AsanEarly(void) { __asan_init(); }
C
gcc -shared -fPIC -Wl,-z,initfirst -o "$dir/asan_early.so" "$dir/asan_early.c" "$asan"
# PostgreSQL frees by memory context, never all at exit: no leak check.
cat >"$dir/environment" <<ENV
LD_PRELOAD = '$asan:$ubsan:$dir/asan_early.so'
ASAN_OPTIONS = 'detect_leaks=0:verify_asan_link_order=0:abort_on_error=1'
UBSAN_OPTIONS = 'print_stacktrace=1:halt_on_error=1'
ENV
# the server runs as postgres
mkdir -p "$dir/log"
chmod 755 "$dir" && chmod 1777 "$dir/log"
echo "MRFDP_SERVER_ENV=$dir/environment MRFDP_SERVER_LOG_DIR=$dir/log"
