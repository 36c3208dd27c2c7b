#!/usr/bin/env bash
# Writes the Wisconsin breast cancer data (699 biopsies: a sample id, nine
# cytology scores from 1 to 10, Bare.nuclei missing in 16, and the class
# benign or malignant) as CSV, from Debian's r-cran-mlbench (the data ships
# as an .rda file, read with R).
#   scripts/breastcancer.sh [out.csv]      (default /tmp/breastcancer.csv)
# Installs r-cran-mlbench when missing (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/breastcancer.csv}
./scripts/install-deps.sh
# one line: R 4.2's Rscript ignores what follows a newline inside -e
Rscript -e 'suppressMessages(library(mlbench)); data(BreastCancer); write.csv(BreastCancer, commandArgs(TRUE)[1], row.names = FALSE, na = "")' "$out"
chmod 644 "$out"
echo "wrote $out ($(($(wc -l < "$out") - 1)) rows)"
