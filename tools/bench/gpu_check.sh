#!/usr/bin/env bash
# The GPU check, in one go: install CuPy (the s2s[cupy] extra, cupy-cuda12x), run the CuPy tests
# (op table and corpus through value_and_grad, vjp, jvp, jit and vmap; jit's fused CUDA kernels;
# device_put, mixing), the kernels' C checks (host compiler, nvcc) and the GPU benchmark, then
# print one summary table.
#   bash tools/bench/gpu_check.sh
# Without a GPU (no working nvidia-smi) nothing is installed: the script says so, runs the
# GPU-free kernel checks, shows the CuPy tests' skip reason and exits 2.
# Without network, pre-install CuPy (a wheel) first: the install step is skipped when it imports.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

gpu=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    gpu=$(nvidia-smi -L | head -1)
fi
if [ -z "$gpu" ]; then
    echo "gpu_check: no GPU here (nvidia-smi missing or sees no device): CuPy is not installed, the CuPy tests skip."
elif ! python -c "import cupy" 2>/dev/null; then
    echo "gpu_check: $gpu; installing CuPy (cupy-cuda12x)"
    python -m pip install -q 'cupy-cuda12x>=13' || { echo "gpu_check: could not install CuPy"; exit 1; }
fi

log=$(mktemp)
python -m pytest -q -rs -p no:cacheprovider tests/backends/test_backend_cupy.py tests/backends/test_backends_kernels.py > "$log" 2>&1
tests=$?
grep -vE '^[.sxXFE]+ +\[ *[0-9]+%\]$' "$log" | tail -n 40  # failures and skip reasons, not the dots
summary=$(tail -n 1 "$log")
rm -f "$log"

if [ -n "$gpu" ]; then
    python tools/bench/gpu_bench.py
    bench=$?
else
    bench=2
fi

echo
echo "| step | result |"
echo "|---|---|"
echo "| GPU | ${gpu:-none} |"
echo "| CuPy | $(python -c 'import cupy; print(cupy.__version__)' 2>/dev/null || echo 'not installed') |"
echo "| tests (CuPy variants, kernel C checks) | exit $tests: $summary |"
echo "| benchmark (tools/bench/gpu_bench.py) | $([ -n "$gpu" ] && echo "exit $bench" || echo 'not run: no GPU') |"
if [ -z "$gpu" ]; then
    exit 2
fi
exit $(( tests || bench ))
