"""Deferred sums (passes/accumulate.py): a loop's `acc = acc + p.T @ q` and `acc = acc +
xp.sum(q, axis=0)` become lists of the operands and one product after the loop. The shape of the
code it makes (X1's reverse sweep keeps only its recurrence), its values against the loop run as
written and hand-written backpropagation through time, and the loops it leaves alone."""
import sys
import textwrap

import gast
import numpy as np
from helpers_compare import assert_trees_close
from paths import BENCH

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import accumulate
from s2s.test_util import check_grads

sys.path.insert(0, str(BENCH))
from bench_programs import rnn_hand, rnn_loss  # noqa: E402  (X1's program and its hand-written gradient)

SHAPES = {"p": (3, 4), "q": (3, 2), "b_h": (3, 2), "w": (2, 2)}


def _run(src, known_shapes=SHAPES):
    fn = gast.parse(textwrap.dedent(src)).body[0]
    before = to_source(fn)
    fn.body, changed = accumulate.PASS(fn.body, {a.id for a in fn.args.args}, {"name_shapes": known_shapes})
    return before, to_source(fn), changed


def _call(src, *args):
    ns = {"xp": np}
    exec(src, ns)  # noqa: S102 - the test's own generated function
    return ns["f"](*args)


LOOP = """
def f(ps, qs, w, acc, col):
    for t in range(len(ps)):
        p = ps[t]
        q = qs[t] * 2.0
        col = col + xp.sum(q, axis=0)
        acc = acc + p.T @ q
        w = w + q.T @ q
    return acc, col, w
"""


def test_accumulations_are_deferred_and_equal_up_to_rounding():
    before, after, changed = _run(LOOP)
    assert changed
    loop = after.split("for t in")[1].split("if sum_0:")[0]
    assert "@" not in loop and "xp.sum" not in loop and loop.count(".append(") == 2  # q once, p once
    assert "xp.concatenate(sum_0)" in after and "acc = acc + cat_1.T @ cat_0" in after
    rng = np.random.default_rng(0)
    ps, qs = rng.normal(size=(9, 3, 4)), rng.normal(size=(9, 3, 2))
    args = (ps, qs, rng.normal(size=(2, 2)), rng.normal(size=(4, 2)), rng.normal(size=2))
    assert_trees_close(_call(after, *args), _call(before, *args), rtol=1e-13)
    # no iteration: the accumulators as they were
    empty = (ps[:0], qs[:0]) + args[2:]
    for got, want in zip(_call(after, *empty), _call(before, *empty)):
        assert np.array_equal(got, want)


def test_loops_that_stay():
    read_inside = LOOP.replace("q = qs[t] * 2.0", "q = qs[t] * xp.sum(col)")  # `col` read besides its sum
    _, after, _ = _run(read_inside)
    assert "col = col + xp.sum(q, axis=0)" in after.split("for t in")[1]
    written = LOOP.replace("        p = ps[t]\n", "        p = ps[t]\n        ps[0, 0, 0] = 1.0\n")  # an item store
    assert not _run(written)[2]
    sorted_ = LOOP.replace("        p = ps[t]\n", "        p = ps[t]\n        col.sort()\n")  # an in-place method
    assert not _run(sorted_)[2]
    stop = "        acc = acc + p.T @ q\n"
    broken = LOOP.replace(stop, stop + "        if t > 3:\n            break\n")
    assert not _run(broken)[2]
    unknown = {k: v for k, v in SHAPES.items() if k != "p"}  # p's shape unknown: its product stays
    _, after, _ = _run(LOOP, unknown)
    assert "acc = acc + p.T @ q" in after.split("for t in")[1] and "w = w + cat_0.T @ cat_0" in after


def test_rnn_reverse_sweep_keeps_only_its_recurrence():
    """X1 (issue 29): the backward loop's one product is the recurrence `xp.dot(b_t6, wh.T)` (a
    product of matrices is `xp.dot` under jit: shapefold.array_methods); the three weight
    gradients are one product (or sum) each after it."""
    rng = np.random.default_rng(1)
    args = ((rng.normal(size=(5, 4)) / 2, rng.normal(size=(4, 4)) / 2, 0.1 * rng.normal(size=4)),
            rng.normal(size=(12, 3, 5)), rng.normal(size=(3, 4)))
    g = s2s.jit(s2s.grad(rnn_loss))
    assert_trees_close(g(*args), rnn_hand(*args), rtol=1e-12)
    src = "\n".join(line for line in s2s.source(g, *args).split("\n") if not line.lstrip().startswith("#"))
    backward = src.split("for t in r1:")[1].split("\n    if ")[0]
    assert backward.count("xp.dot(") == 1 and "xp.dot(b_t6, wh.T)" in backward and "sum(" not in backward
    assert "@" not in backward
    tail = src.split("for t in r1:")[1].split("\n    if ")[1]
    assert tail.count("xp.concatenate(") == 3 and tail.count("@") + tail.count("xp.dot(") == 2
    check_grads(rnn_loss, args, order=1, modes=("rev",))
