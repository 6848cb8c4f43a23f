"""vmap against a Python loop over examples: the corpus, the seeds' examples, in_axes/out_axes,
batched control flow where examples take different branches and trip counts, and error cases."""

import numpy as np
import pytest
from corpus import CORPUS

import s2s

IDS = [fn.__name__ for fn, _ in CORPUS]
B = 5


def _batch(make_args):
    """B examples of the corpus arguments (different seeds: different branches and trip counts)."""
    examples = [make_args(np.random.default_rng(seed)) for seed in range(B)]
    return examples, tuple(np.stack([np.asarray(e[i]) for e in examples]) for i in range(len(examples[0])))


# per-example list lengths: refused with an S2SError, never a wrong number (a recursion whose depth
# differs per example batches: a branch no example takes is skipped, so the recursion ends)
REFUSED = {"listcomp_if": "append to a list"}


def _loop(fn, examples, axes):
    outs = [fn(*ex) for ex in examples]
    return outs


def _assert_tree_close(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_tree_close(g, w)
        return
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-12, atol=1e-12)


def _stack_outs(outs):
    if isinstance(outs[0], (tuple, list)):
        return type(outs[0])(_stack_outs([o[i] for o in outs]) for i in range(len(outs[0])))
    return np.stack([np.asarray(o) for o in outs])


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_corpus_vmap_equals_loop(fn, make_args):
    examples, batched = _batch(make_args)
    if fn.__name__ in REFUSED:
        with pytest.raises(s2s.S2SError, match=REFUSED[fn.__name__]):
            s2s.vmap(fn)(*batched)
        return
    want = _stack_outs(_loop(fn, examples, 0))
    _assert_tree_close(s2s.vmap(fn)(*batched), want)


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_corpus_vmap_first_arg_only(fn, make_args):
    """in_axes=(0, None, ...): the other arguments shared by every example."""
    if fn.__name__ in REFUSED:
        pytest.skip("refused; checked in test_corpus_vmap_equals_loop")
    examples, batched = _batch(make_args)
    shared = examples[0][1:]
    exs = [(e[0],) + tuple(shared) for e in examples]
    want = _stack_outs([fn(*ex) for ex in exs])
    axes = (0,) + (None,) * len(shared)
    _assert_tree_close(s2s.vmap(fn, in_axes=axes)(batched[0], *shared), want)


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_corpus_vmap_axis_last_out_last(fn, make_args):
    if fn.__name__ in REFUSED:
        pytest.skip("refused; checked in test_corpus_vmap_equals_loop")
    examples, batched = _batch(make_args)
    want = _stack_outs(_loop(fn, examples, 0))
    moved = tuple(np.moveaxis(b, 0, -1) for b in batched)
    got = s2s.vmap(fn, in_axes=-1, out_axes=-1)(*moved)
    _assert_tree_close(_back(got), want)


def _back(t):
    if isinstance(t, (tuple, list)):
        return type(t)(_back(e) for e in t)
    return np.moveaxis(np.asarray(t), -1, 0)


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_corpus_vmap_of_grad_equals_loop_of_grad(fn, make_args):
    if fn.__name__ in REFUSED:
        pytest.skip("refused; checked in test_corpus_vmap_equals_loop")
    examples, batched = _batch(make_args)
    g = s2s.grad(fn)
    want = _stack_outs([g(*ex) for ex in examples])
    _assert_tree_close(s2s.vmap(g)(*batched), want)
