"""A forward array loop kernel's tape items as one `TapeRows` (issue 46, `emit/tape_blocks.py`):
where every pop that can reach them is a backward kernel's, the forward kernel pushes one item
(rows per push site), the record's copy shares it and the backward kernel reads its rows. The
gradients are bitwise those of the same code pushing the items one by one, and equal the
Python loops', the authors' dW and central differences; a block expands to exactly the Python
loop's items (one object where two sites push one); the backward kernel falling back to its
Python loop expands it; code whose tape leaves the function or is popped by a Python loop gets
no blocks."""
import gast
import numpy as np
import pytest
from course_losses import softmax_first, softmax_loss_and_dw, svm_first, svm_loss_and_dw
from helpers_compare import fd_grad

import s2s
from s2s.compiler.emit import numba_arrayloops, numba_kernels, tape_blocks
from s2s.compiler.passes import arrayloop
from s2s.runtime import tape_copies
from s2s.runtime.tape_copies import TapeRows, expand_rows

needs_numba = pytest.mark.skipif(not numba_kernels.available(), reason="numba not installed or S2S_NO_NUMBA set")
N = arrayloop.MIN_TRIPS + 8
LOSSES = [(svm_first, svm_loss_and_dw), (softmax_first, softmax_loss_and_dw)]


def _args(n=N, d=30, c=10, seed=0):
    r = np.random.default_rng(seed)
    return r.normal(size=(d, c)) * 0.1, r.normal(size=(n, d)), r.integers(0, c, n), 0.1


def _pushed(monkeypatch, blocks=True) -> list:
    """The tapes' last items after each forward kernel pushed (their types); with `blocks` False,
    the kernels push items one by one."""
    seen = []
    real = numba_arrayloops.ArrayLoop._tape_items

    def tape_items(self, args, n, arrays):
        allowed = self.blocks
        self.blocks = self.blocks and blocks
        real(self, args, n, arrays)
        self.blocks = allowed
        seen.extend(type(args[self.params.index(s[1])][-1]) for s in self.sites[:1])
    monkeypatch.setattr(numba_arrayloops.ArrayLoop, "_tape_items", tape_items)
    return seen


@needs_numba
@pytest.mark.parametrize("loss, author", LOSSES, ids=["svm", "softmax"])
def test_the_course_losses_push_one_block_with_the_item_by_item_gradient(loss, author, monkeypatch):
    args = _args(seed=7)
    seen = _pushed(monkeypatch)
    got = s2s.jit(s2s.grad(loss))(*args)
    assert seen == [TapeRows]
    with monkeypatch.context() as m:  # (the same code pushing the items one by one)
        seen = _pushed(m, blocks=False)
        items = s2s.jit(s2s.grad(loss))(*args)
        assert seen and TapeRows not in seen
    np.testing.assert_array_equal(got, items)
    np.testing.assert_allclose(got, s2s.grad(loss)(*args), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, author(*args)[1], rtol=1e-10, atol=1e-13)
    W, X, y, reg = args
    np.testing.assert_allclose(got, fd_grad(lambda w: loss(w, X, y, reg), W), rtol=1e-5, atol=1e-7)


@needs_numba
@pytest.mark.parametrize("way", ["items", "python"])
@pytest.mark.parametrize("loss", [svm_first, softmax_first], ids=["svm", "softmax"])
def test_a_backward_sweep_that_cannot_read_the_rows_expands_them(loss, way, monkeypatch):
    """The backward kernel refusing the block takes its items one by one (`items`), or its Python
    loop runs (`python`, as when the kernel raises): the same gradient."""
    args = _args(seed=8)
    want = s2s.grad(loss)(*args)
    seen = _pushed(monkeypatch)
    if way == "items":
        monkeypatch.setattr(tape_blocks, "stacks", lambda *a: None)
    else:
        real = numba_arrayloops.ArrayLoop.__call__

        def call(self, xp, *a):
            return self._python(xp, a) if self._plan.popped else real(self, xp, *a)
        monkeypatch.setattr(numba_arrayloops.ArrayLoop, "__call__", call)
    got = s2s.jit(s2s.grad(loss))(*args)
    assert seen == [TapeRows]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@needs_numba
@pytest.mark.parametrize("loss", [svm_first, softmax_first], ids=["svm", "softmax"])
def test_a_block_expands_to_the_python_loop_s_items(loss, monkeypatch):
    """The tape the forward kernel leaves, expanded, against the tape of the same kernel pushing
    items: equal values, one object where the Python loop has one (softmax's `ds = probs`)."""
    tapes = {}
    real = numba_arrayloops.ArrayLoop._tape_items

    def tape_items(self, args, n, arrays):
        for blocks in (False, True):
            tape = []
            self.blocks, saved = blocks, [tape if a is args[self.params.index(self.sites[0][1])] else a for a in args]
            real(self, saved, n, arrays)
            tapes[blocks] = tape
        self.blocks = True
        real(self, args, n, arrays)
    monkeypatch.setattr(numba_arrayloops.ArrayLoop, "_tape_items", tape_items)
    s2s.jit(s2s.grad(loss))(*_args(seed=9))
    expanded, items = expand_rows(list(tapes[True])), tapes[False]
    assert len(tapes[True]) == 1 and len(expanded) == len(items) > N
    for a, b in zip(expanded, items):
        assert type(a) is type(b)
        if a is not None:
            np.testing.assert_array_equal(a, b)
    ids_a, ids_b = {}, {}
    pattern_a = [ids_a.setdefault(id(a), len(ids_a)) for a in expanded if type(a) is np.ndarray]
    pattern_b = [ids_b.setdefault(id(b), len(ids_b)) for b in items if type(b) is np.ndarray]
    assert pattern_a == pattern_b  # (the same objects shared, at the same places)


def test_a_record_s_copy_shares_the_block_and_copies_its_first_items():
    r = np.random.default_rng(1)
    before = r.normal(size=3)
    block = TapeRows(4, ((r.normal(size=(4, 3)), "saved", False, 1, None),), (before,))
    tape = [1.0, block]
    copied = tape_copies.private((tape, before), (0, 1))
    new_block = copied[0][1]
    assert copied[0] is not tape and new_block is not block and new_block.sites is block.sites
    assert new_block.firsts[0] is copied[1] and copied[1] is not before  # (one object, copied once)
    np.testing.assert_array_equal(copied[1], before)
    same = TapeRows(4, block.sites, (None,))
    assert tape_copies.private([same], True)[0] is same
    items = same.items()
    assert items[0] is None and all(np.array_equal(a, b) for a, b in zip(items[1:], block.sites[0][0][1:]))


GRAD_CODE = """
def f(W):
    tape = []
    t = aloop_0(xp, W, tape)
    saved0 = (t, tape)
    (b_t, b_tape) = rt.private(saved0, (1,))
    aloop_1(xp, b_tape)
    return t
"""


@pytest.mark.parametrize("change, blocks", [
    ("", True),
    ("    return saved0\n", False),  # (the record leaves the function: a vjp's pullback pops it)
    ("    for i in range(3):\n        b_tape.pop()\n", False),  # (a Python loop pops the tape)
    ("    g(tape)\n", False),
])
def test_blocks_only_where_every_pop_that_can_reach_them_is_a_kernel_s(change, blocks):
    src = GRAD_CODE.replace("    return t\n", change + "    return t\n")
    run = gast.parse(src).body[0]
    loops = [("aloop_0", ["W", "tape"], ["t"], {"W": "value", "tape": "tape"}, False, None,
              ((0, "tape", "saved", "t", False, 1, None),)),
             ("aloop_1", ["b_tape"], [], {"b_tape": "poptape"}, False, None, ((0, "b_tape", "pop", "x", None, 1, None),))]
    assert tape_blocks.block_loops(run, loops) == ({"aloop_0"} if blocks else set())
