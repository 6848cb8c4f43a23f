#!/bin/sh
# Issue 46 section 3 on this machine within 480 s: the W rows (s2s, hand-written NumPy, JAX where
# installed) with BLAS at its default threads and on one thread, and the loop programs; the tables
# (many_cores.md, many_cores.json, each step's page and log, lscpu.txt) go into $OUT.
# Extra arguments go to tools/bench/many_cores.py (--quick, --peers none, --budget 300, ...).
set -eu
: "${OUT:?set OUT to the folder for the results}"
cd "$(dirname "$0")/../.."
PY="${PYTHON:-$(command -v python || command -v python3)}"
exec "$PY" tools/bench/many_cores.py --out "$OUT" "$@"
