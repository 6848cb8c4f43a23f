"""`analysis.TopLiveness` (what the lifetime and reuse passes read) gives the same live sets at
top-level statements as the full `analysis.Liveness`, on every generated function the corpus
and the compile-time benchmark's programs produce, through every transform that optimizes."""
import os
import sys

import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s import analysis as an
from s2s import driver

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import bench_compile  # noqa: E402


@pytest.fixture
def bodies(monkeypatch):
    """The optimized bodies `driver._compile` finalizes while the test runs."""
    seen = []
    finalize = driver.finalize

    def spy(fn, *args, **kw):
        seen.append(fn.body)
        return finalize(fn, *args, **kw)
    monkeypatch.setattr(driver, "finalize", spy)
    driver.clear_caches()
    yield seen
    driver.clear_caches()


def assert_same_top_level_liveness(body):
    full, top = an.Liveness(body), an.TopLiveness(body)
    for s in body:
        assert set(top.after[s]) == set(full.after[s]), an.classify(s.value) if hasattr(s, "value") else s
        assert set(top.before[s]) == set(full.before[s])


@pytest.mark.parametrize("fn,make_args", CORPUS, ids=[f.__name__ for f, _ in CORPUS])
def test_corpus_grad_and_jit(fn, make_args, bodies):
    args = make_args(np.random.default_rng(0))
    s2s.grad(fn)(*args)
    s2s.jit(fn)(*args)
    assert bodies
    for body in bodies:
        assert_same_top_level_liveness(body)


@pytest.mark.parametrize("variant", bench_compile.VARIANTS)
@pytest.mark.parametrize("transform", ["grad", "jvp", "jit", "vmap"])
def test_generated_programs(transform, variant, bodies, tmp_path):
    mod = bench_compile.load_program(bench_compile.make_program(60, variant), str(tmp_path),
                                     f"_s2s_top_live_{transform}_{variant}")
    bench_compile.first_call(transform, mod.prog)
    assert bodies
    for body in bodies:
        assert_same_top_level_liveness(body)


def test_a_branch_that_assigns_on_one_path_keeps_the_name_live():
    """The summary of a block: read first on some path -> live; assigned on every path -> dead;
    assigned on one path only -> as live as after the block."""
    import gast
    src = ("def f(a, c):\n    x = a\n    y = a\n    z = a\n    if c:\n        x = 1.0\n        w = y\n"
           "    else:\n        x = 2.0\n        z = 3.0\n    return x + y + z + w\n")
    body = gast.parse(src).body[0].body
    top = an.TopLiveness(body)
    assert "x" not in top.after[body[2]]          # assigned on both paths before it is read
    assert "y" in top.after[body[2]] and "z" in top.after[body[2]]  # read on a path / one path assigns
    assert_same_top_level_liveness(body)
