#!/usr/bin/env bash
# The GPU check, in one go: install CuPy (the s2s[cupy] extra, cupy-cuda12x), run the CuPy tests
# (op table, corpus, device_put, mixing) and the GPU benchmark, printing one table.
#   bash tools/gpu_check.sh
# Without network, pre-install CuPy (a wheel) first: the install step is skipped when it imports.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! python -c "import cupy" 2>/dev/null; then
    python -m pip install -q -e '.[test,cupy]' || { echo "gpu_check: could not install CuPy"; exit 1; }
fi
python -m pip install -q -e '.[test]' 2>/dev/null || true
python -m pytest -q -rs -p no:cacheprovider tests/test_backend_cupy.py
tests=$?
python tools/gpu_bench.py
bench=$?
echo "gpu_check: tests exit $tests, benchmark exit $bench"
exit $(( tests || bench ))
