"""The liveness analyses against the reference that builds plain sets at every block
(`analysis.CopyingLiveness`, quadratic where many names are live across many blocks): the
linear `analysis.Liveness` (blocks summarized by gen/kill, views over next-use tables) at every
statement, and `analysis.TopLiveness` (what the lifetime and reuse passes read) at the top-level
ones, on every function the corpus and the compile-time benchmark's programs produce, through
every transform that optimizes, and on the source functions themselves."""
import sys

import gast
import numpy as np
import pytest
from corpus import CORPUS
from paths import BENCH

import s2s
from s2s.compiler import analysis, driver

sys.path.insert(0, str(BENCH))
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
    ref, full, top = analysis.CopyingLiveness(body), analysis.Liveness(body), analysis.TopLiveness(body)
    assert set(full.live_in) == set(ref.live_in)
    for s in analysis.walk_stmts(body):
        assert set(full.after[s]) == set(ref.after[s]), gast.dump(s)
        assert set(full.before[s]) == set(ref.before[s]), gast.dump(s)
    for s in body:
        assert set(top.after[s]) == set(ref.after[s]), gast.dump(s)
        assert set(top.before[s]) == set(ref.before[s]), gast.dump(s)


@pytest.mark.parametrize("fn,make_args", CORPUS, ids=[f.__name__ for f, _ in CORPUS])
def test_corpus_grad_and_jit(fn, make_args, bodies):
    args = make_args(np.random.default_rng(0))
    s2s.grad(fn)(*args)
    s2s.jit(fn)(*args)
    assert bodies
    for body in bodies + [driver.core_of(fn).node.body]:
        assert_same_top_level_liveness(body)


@pytest.mark.parametrize("variant", bench_compile.VARIANTS)
@pytest.mark.parametrize("transform", ["grad", "jvp", "jit", "vmap", "hessian"])
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
    src = ("def f(a, c):\n    x = a\n    y = a\n    z = a\n    if c:\n        x = 1.0\n        w = y\n"
           "    else:\n        x = 2.0\n        z = 3.0\n    return x + y + z + w\n")
    body = gast.parse(src).body[0].body
    top = analysis.TopLiveness(body)
    assert "x" not in top.after[body[2]]          # assigned on both paths before it is read
    assert "y" in top.after[body[2]] and "z" in top.after[body[2]]  # read on a path / one path assigns
    assert_same_top_level_liveness(body)


def test_loops_with_jumps_and_nested_blocks():
    """Loops that break or continue (analysed with copies), nested in and around ones that do not."""
    src = """
def f(a, n):
    s = 0.0
    t = a
    for i in range(n):
        u = t * 2.0
        if u > 3.0:
            k = 0
            while k < 3:
                if s > 1.0:
                    break
                s = s + u
                k = k + 1
            continue
        t = u + s
        for j in range(2):
            if j > 0:
                v = t
            else:
                v = s
            s = s + v
    w = t
    while w > 1.0:
        w = w - s
    return s + w
"""
    assert_same_top_level_liveness(gast.parse(src).body[0].body)


def test_the_reference_comparison_can_fail(monkeypatch):
    """A summary that forgets what a branch reads gives other sets, and the comparison sees it."""
    body = gast.parse("def f(a, c):\n    x = a\n    if c:\n        y = x\n    else:\n        y = 1.0\n"
                      "    return y\n").body[0].body
    real = analysis.Liveness.summary
    monkeypatch.setattr(analysis.Liveness, "summary", lambda self, s: (set(), real(self, s)[1]))
    with pytest.raises(AssertionError):
        assert_same_top_level_liveness(body)
