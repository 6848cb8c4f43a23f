"""What a pure vjp_fn costs: the time of a backward sweep and of the private copy of the record it
starts with (docs/transforms.md, "Purity of `vjp_fn`"). Run: python tools/bench/bench_purity.py"""
import timeit

import numpy as np

import s2s
from s2s import runtime as rt
from s2s.compiler import driver


def row_updates(x):
    A = x.copy()
    for i in range(len(x) - 1):
        A[i] = A[i + 1] * 0.5 + np.sin(x[i])
    return np.sum(A * A)


def recurrence(x):
    h = np.zeros(64)
    for i in range(200):
        h = np.tanh(h * 0.9 + x)
    return np.sum(h)


def copy_kind(f) -> str:
    src = s2s.api.sources.transformed_source(f, "vjp").replace("\n", "").replace(" ", "")
    if "rt.private(saved,True" in src:
        return "arrays"
    return "lists" if "rt.private(saved" in src else "top-level lists"


def main(n=50):
    for f, x in [(recurrence, np.linspace(0, 1, 64)), (row_updates, np.linspace(0, 1, 1000))]:
        _, vjp_fn = s2s.vjp(f, x)
        vjp_fn(1.0)
        _, saved = driver.split_vjp(f, (True,))[0](x)
        kind = copy_kind(f)
        copy = (lambda: rt.copy_saved(saved)) if kind == "top-level lists" else \
            (lambda: rt.private(saved, kind == "arrays"))
        t_bwd = timeit.timeit(lambda: vjp_fn(1.0), number=n) / n
        t_copy = timeit.timeit(copy, number=n) / n
        print(f"{f.__name__}: copies {kind}; vjp_fn {t_bwd * 1e3:.2f} ms, of which the copy "
              f"{t_copy * 1e3:.3f} ms ({100 * t_copy / t_bwd:.1f}%)")


if __name__ == "__main__":
    main()
