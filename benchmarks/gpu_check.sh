#!/usr/bin/env bash
# One command for a GPU machine (under 8 minutes): the accelerator tests (compat_tests/accelerator,
# against CUDA PyTorch where it is installed) on the real GPU, then benchmarks/bench_gpu.py.
# torchlike runs as source (PYTHONPATH); no installs are needed beyond jax with CUDA, optax,
# numpy and torch. Results go to $OUT (a new temporary folder if unset).
# Where JAX sees no accelerator, it says so and runs a dry run instead: the tests in the
# simulated mode (TORCHLIKE_SIMULATED_CUDA=2) and the benchmarks with --quick on the CPU.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export XLA_PYTHON_CLIENT_PREALLOCATE=false     # JAX beside PyTorch's CUDA allocator
PY=${PYTHON:-python3}

# pytest, if the machine has none: the copy this checkout's .venv holds (pure Python)
if ! "$PY" -c "import pytest" 2>/dev/null; then
    VENDOR=$(mktemp -d)
    for site in .venv/lib/python3*/site-packages; do
        for pkg in pytest _pytest pluggy iniconfig packaging pygments py.py; do
            [ -e "$site/$pkg" ] && ln -sf "$PWD/$site/$pkg" "$VENDOR/$pkg"
        done
    done
    export PYTHONPATH="$PYTHONPATH:$VENDOR"
fi

ACCEL=$("$PY" -c "import jax; print(int(any(d.platform != 'cpu' for d in jax.devices())))" \
        2>/dev/null || echo 0)
"$PY" -c "import jax, torch; print('jax', jax.__version__, jax.devices(), '| torch', \
torch.__version__, 'cuda', torch.cuda.is_available())" 2>&1 | tee "$OUT/machine.txt"
if [ "$ACCEL" = "1" ]; then
    export JAX_PLATFORMS=${JAX_PLATFORMS:-}
    QUICK=""
else
    echo "no accelerator visible to JAX: dry run (simulated mode, CPU benchmarks --quick)"
    export TORCHLIKE_SIMULATED_CUDA=2
    QUICK="--quick"
fi

echo "== accelerator tests"
# the examples' training runs (test_examples_on_device.py) are left to CI's simulated run: they
# would take most of this budget on a GPU too (compiles)
timeout 120 "$PY" -m pytest compat_tests/accelerator -q -rf --tb=short -p no:cacheprovider \
    --deselect compat_tests/accelerator/test_examples_on_device.py \
    > "$OUT/accelerator_tests.txt" 2>&1
tail -40 "$OUT/accelerator_tests.txt"
unset TORCHLIKE_SIMULATED_CUDA

echo "== GPU benchmarks"
timeout 330 "$PY" benchmarks/bench_gpu.py $QUICK --timeout 150 --json "$OUT/bench_gpu.json" \
    2>&1 | tee "$OUT/bench_gpu.txt"
echo "results in $OUT"
