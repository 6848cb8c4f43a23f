"""One-trip loops through a reverse sweep's record (issue 46 section 2, passes/record_ranges.py):
the backward loop of an inlined call replays the range its forward loop saved in the record,
`for i in rt.reversed_range(r1)` with `r1` unpacked from `rt.private(saved0, ...)` and
`saved0 = (..., r0, ...)`, `r0 = range(0, 64, 64)`: that loop runs once too, so its body becomes
straight-line code. Values against central differences and grad without jit; the pass on code
where the range is not known to be the record's stays a loop."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import onetrip


def _pass(src):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    body, changed = onetrip.PASS(fn.body, {a.id for a in fn.args.args}, {"shapes": {"x": (3,)}})
    fn.body = body
    return to_source(fn), changed


RECORD = """
    def f(x):
        r0 = range(0, 64, 64)
        y = x * 2.0
        saved0 = (y, r0)
        b, r1 = rt.{copy}(saved0{more})
        r2 = rt.reversed_range(r1)
        for i in r2:
            z = b * i
        return z
    """


@pytest.mark.parametrize("copy,more", [("private", ", False"), ("copy_saved", "")])
def test_the_records_range(copy, more):
    out, changed = _pass(RECORD.format(copy=copy, more=more))
    assert changed and "for " not in out and "i = 0" in out


@pytest.mark.parametrize("edit", [
    ("range(0, 64, 64)", "range(0, 128, 64)"),          # two trips
    ("saved0 = (y, r0)", "saved0 = (r0, y)"),           # the range at another position
    ("        return z", "        r1 = range(2)\n        return z"),  # r1 bound twice
    ("rt.private(saved0, False)", "rt.other(saved0, False)"),  # not the record's copy
])
def test_other_ranges_stay_loops(edit):
    out, changed = _pass(RECORD.format(copy="private", more=", False").replace(*edit))
    assert not changed and "for i in r2" in out


def tanh(x):
    return (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1)


def forward(w, X, batch_size=4):
    outs = []
    for i in range(0, X.shape[0], batch_size):
        x = X[i:i + batch_size]
        h = np.zeros((x.shape[0], w.shape[1]))
        for t in range(x.shape[1]):
            h = tanh(x[:, t] @ w + h)
        outs.append(h)
    return np.concatenate(outs, axis=0)


def loss(w, X):
    return np.sum(forward(w, X) ** 2)


@pytest.mark.parametrize("n", [4, 8])  # one batch (the backward's batch loop unrolled), two
def test_values(n):
    r = np.random.default_rng(5)
    w, X = r.normal(size=(3, 3)) * 0.5, r.normal(size=(n, 5, 3))
    g = s2s.jit(s2s.grad(loss))
    got = g(w, X)
    np.testing.assert_allclose(got, s2s.grad(loss)(w, X), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, fd_grad(lambda v: loss(v, X), w), rtol=1e-6, atol=1e-8)
    loops = [ln.strip() for ln in s2s.source(g, w, X).splitlines() if ln.strip().startswith("for bwd_")]
    assert len(loops) == (1 if n == 4 else 2)  # (one batch: the time loop alone)
