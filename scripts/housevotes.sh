#!/usr/bin/env bash
# Writes the HouseVotes84 roll-call data (435 members of the US House, party
# and 16 yes/no votes, NULL where a member did not vote) as CSV, from
# Debian's r-cran-mlbench (the data ships as an .rda file, read with R).
#   scripts/housevotes.sh [out.csv]      (default /tmp/housevotes84.csv)
# Installs graphviz and r-cran-mlbench when missing (scripts/install-deps.sh demo).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/housevotes84.csv}
./scripts/install-deps.sh demo
# one line: R 4.2's Rscript ignores what follows a newline inside -e
Rscript -e 'suppressMessages(library(mlbench)); data(HouseVotes84); write.csv(HouseVotes84, commandArgs(TRUE)[1], row.names = FALSE, na = "")' "$out"
chmod 644 "$out"
echo "wrote $out ($(($(wc -l < "$out") - 1)) rows)"
