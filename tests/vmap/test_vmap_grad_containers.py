"""Batched derivatives of functions whose helpers take lists, tuples and dicts of arrays and loop over
them (slices, appends, nested helpers): every result is checked against a Python loop over examples
of the unbatched transform, and the unbatched gradient against central differences.

Guards a wrong derivative: grad of batched code summed two cotangents of a list argument with `+`,
which concatenates the lists (vmap(grad(f)) runs as grad of the summed batched f)."""

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def chain(arrays):
    out = arrays[0]
    for a in arrays[1:]:
        out = out @ a
    return out


def chain_indexed(arrays):
    out = arrays[0]
    for i in range(1, len(arrays)):
        out = out @ arrays[i]
    return out


def mixed_dict(d):
    return d["a"] @ d["b"] + np.sum(d["a"]) * d["c"]


def squashed_chain(xs):
    acc = []
    for x in xs:
        acc.append(np.tanh(x))
    tot = acc[0]
    for y in acc[1:]:
        tot = tot @ y
    return tot


def reversed_chain(arrays):
    return chain(arrays[::-1])


def chain_twice(arrays):
    return chain(arrays) + chain([arrays[0], arrays[1], arrays[2]])


def f_list(A, B, C):
    return np.sum(np.sin(chain([A, B, C])))


def f_tuple(A, B, C):
    return np.sum(np.sin(chain((A, B, C))))


def f_indexed(A, B, C):
    return np.sum(np.sin(chain_indexed([A, B, C])))


def f_dict(A, B, C):
    return np.sum(np.cos(mixed_dict({"a": A, "b": B @ B, "c": C[0, 0]})))


def f_append(A, B, C):
    return np.sum(squashed_chain([A, B, C]))


def f_nested(A, B, C):
    return np.sum(np.sin(reversed_chain([C, B, A])))


def f_twice(A, B, C):
    return np.sum(np.sin(chain_twice([A, B, C])))


FUNCS = [f_list, f_tuple, f_indexed, f_dict, f_append, f_nested, f_twice]
RNG = np.random.default_rng(0)
N = 3
ARGS = (RNG.normal(size=(N, 2, 3)), RNG.normal(size=(N, 3, 3)), RNG.normal(size=(N, 3, 2)))


def _examples(i):
    return tuple(a[i] for a in ARGS)


def _stacked(outs):
    """A loop's per-example results stacked like vmap's (tuples stacked leaf by leaf)."""
    if isinstance(outs[0], tuple):
        return tuple(_stacked([o[k] for o in outs]) for k in range(len(outs[0])))
    return np.stack(outs)


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_grad_matches_finite_differences(f):
    check_grads(f, _examples(0), order=1, modes=("rev", "fwd"))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1, 2)], ids=str)
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_vmap_of_grad_matches_loop(f, argnums):
    got = s2s.vmap(s2s.grad(f, argnums=argnums))(*ARGS)
    _close(got, _stacked([s2s.grad(f, argnums=argnums)(*_examples(i)) for i in range(N)]))


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_grad_of_summed_vmap_matches_loop(f):
    batched = s2s.vmap(f)

    def total(A, B, C):
        return np.sum(batched(A, B, C))
    got = s2s.grad(total, argnums=(0, 1, 2))(*ARGS)
    _close(got, _stacked([s2s.grad(f, argnums=(0, 1, 2))(*_examples(i)) for i in range(N)]))


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_vmap_of_jacfwd_matches_loop(f):
    got = s2s.vmap(s2s.jacfwd(f, argnums=(0, 2)))(*ARGS)
    _close(got, _stacked([s2s.jacfwd(f, argnums=(0, 2))(*_examples(i)) for i in range(N)]))


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_jvp_of_vmap_matches_loop(f):
    tangents = (ARGS[2][:, :1, :1] * ARGS[0], ARGS[1], -ARGS[2])
    got = s2s.jvp(s2s.vmap(f), ARGS, tangents)[1]
    want = [s2s.jvp(f, _examples(i), tuple(t[i] for t in tangents))[1] for i in range(N)]
    _close(got, np.stack(want))


def test_vmap_of_hessian_through_dict_helper():
    got = s2s.vmap(s2s.hessian(f_dict, argnums=(0, 1)))(*ARGS)
    want = [s2s.hessian(f_dict, argnums=(0, 1))(*_examples(i)) for i in range(N)]
    for j in range(2):
        _close(got[j], _stacked([w[j] for w in want]))


def test_vmap_of_jacrev_through_list_loop_matches_loop():
    """jacrev's batched backward sweep adds each item's cotangent into the list's adjoint
    (rt.example_add_at, once per example on a list; it was refused: a list added to an array). The
    Hessian's loop range comes back in its batched record, still one range (it was refused)."""
    got = s2s.vmap(s2s.jacrev(f_list))(*ARGS)
    _close(got, _stacked([s2s.jacrev(f_list)(*_examples(i)) for i in range(N)]))
    got = s2s.vmap(s2s.hessian(f_list))(*ARGS)
    _close(got, _stacked([s2s.hessian(f_list)(*_examples(i)) for i in range(N)]))


def copied_pair(L):
    M = list(L)
    return np.sum(M[0] * M[1]) + np.sum(np.sin(L[1]))


def f_copied(A, B):
    return copied_pair([A, B])


@pytest.mark.parametrize("transform", [s2s.jacrev, s2s.hessian, s2s.jacfwd], ids=lambda t: t.__name__)
def test_vmap_of_jacobians_through_list_copy(transform):
    """The helper's backward sweep sums a seed that is the same for every example into batched
    values (batched_unbroadcast with an unbatched cotangent must still give a batched result)."""
    xs, ys = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    got = s2s.vmap(transform(f_copied, argnums=(0, 1)))(xs, ys)
    want = _stacked([transform(f_copied, argnums=(0, 1))(x, y) for x, y in zip(xs, ys)])
    _close(got, want)
