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
	# the walk-through's data, mlbench's BreastCancer (test/tables/walkthrough.sh)
	r-cran-mlbench
	# Citus 13.0.5 is built from source for the Citus suite (test/citus/build_citus.sh)
	bison flex libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libpam0g-dev
	libselinux1-dev libicu-dev libreadline-dev libssl-dev libxslt1-dev
)

# The HouseVotes84 example's picture only (scripts/render_dot.sh): graphviz.
# R with mlbench, for the examples' data (scripts/housevotes.sh,
# scripts/breastcancer.sh), is in the list above: the walk-through's test
# reads BreastCancer.
if [ "${1:-}" = demo ]; then
	packages+=(graphviz)
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
