#!/usr/bin/env bash
# Makes Citus 13.0.5 available to the system PostgreSQL 15 for the Citus
# suite: does nothing when it is installed; otherwise builds it once from the
# vendored source archive (never part of this repository) in a cache outside
# the repository and installs it.  Exits 0 when Citus is installed, 2 with the
# reason on stdout when it cannot be (the suite is then skipped, not passed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pg_config=/usr/lib/postgresql/15/bin/pg_config
version=13.0.5
tarball=${MRFDP_CITUS_TARBALL:-$here/../../../shared/vendor/citus-$version.tar.gz}
cache=${MRFDP_CITUS_CACHE:-/var/cache/mrfdp/citus-$version}
libdir=$($pg_config --pkglibdir)
sharedir=$($pg_config --sharedir)

if [ -f "$libdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "Citus $version is not installed and installing it needs root"
	exit 2
fi
if [ ! -f "$cache/.built" ]; then
	if [ ! -f "$tarball" ]; then
		echo "Citus $version is not installed and its source archive is missing ($tarball; set MRFDP_CITUS_TARBALL)"
		exit 2
	fi
	rm -rf "$cache" && mkdir -p "$cache" || exit 2
	tar xzf "$tarball" -C "$cache" || { echo "cannot unpack $tarball"; exit 2; }
	src=$cache
	[ -f "$src/configure" ] || src=$(dirname "$(find "$cache" -maxdepth 2 -name configure | head -n1)")
	echo "building Citus $version in $src (a few minutes, once)" >&2
	if ! (cd "$src" && ./configure PG_CONFIG=$pg_config >"$cache/configure.log" 2>&1 &&
		nice make -j2 >"$cache/make.log" 2>&1); then
		echo "Citus $version did not build (logs in $cache)"
		exit 2
	fi
	echo "$src" >"$cache/.built"
fi
src=$(cat "$cache/.built")
(cd "$src" && make install >"$cache/install.log" 2>&1) || { echo "Citus $version did not install (log: $cache/install.log)"; exit 2; }
exit 0
