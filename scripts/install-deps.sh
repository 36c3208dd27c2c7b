#!/usr/bin/env bash
# Installs the Debian 12 packages mrfdp builds, tests and benchmarks with.
# Run as root (or through sudo).  Skips apt entirely when all are present.
set -euo pipefail

packages=(
	build-essential pkg-config
	postgresql-15 postgresql-server-dev-15 postgresql-common
	libopenblas-dev libdnnl-dev
	postgresql-15-pgtap pgtap
	postgresql-15-cron
	python3-numpy python3-psycopg2
	time
	# Citus 13.0.5 is built from source for the Citus suite (test/citus/build_citus.sh)
	bison flex libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libpam0g-dev
	libselinux1-dev libicu-dev libreadline-dev libssl-dev libxslt1-dev
)

# The README's HouseVotes84 example and its picture only (scripts/housevotes.sh,
# scripts/render_dot.sh): graphviz, and R with mlbench for the data.  Heavy
# (R), so not for the test suite.
if [ "${1:-}" = demo ]; then
	packages+=(graphviz r-cran-mlbench)
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's postgresql package creates a default cluster; the tests never use it.
