"""What reverse mode's tape keeps (issue 30): counted on the record the forward sweep leaves
(`s2s.api.memory.tape_record`), so the counts are the same on every machine. The tape keeps what the
backward sweep reads: values it never reads are not saved, values it reads only for their shape
are kept as shape stubs, and an argument's slice at the loop index is recomputed."""
import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s.api import memory
from s2s.test_util import check_grads

FUNCS = {fn.__name__: (fn, make) for fn, make in CORPUS}


def tanh_rnn(w, u, h, xs):
    for t in range(xs.shape[0]):
        h = np.tanh(h @ w + xs[t] @ u)
    return np.sum(h)


def bptt(w, u, h, xs):
    hs = [h]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(hs[-1] @ w + xs[t] @ u))
    gw, gu, gh = np.zeros_like(w), np.zeros_like(u), np.ones_like(hs[-1])
    for t in range(xs.shape[0] - 1, -1, -1):
        ga = gh * (1 - hs[t + 1] ** 2)
        gw, gu, gh = gw + hs[t].T @ ga, gu + xs[t].T @ ga, ga @ w.T
    return gw, gu


def broadcast_in_loop(x, b):
    h = x
    for i in range(3):
        c = b * 2.0          # shape (1, n): its cotangent is summed down to it from (m, n)
        h = np.sin(h + c)
    return np.sum(h)


def rnn_args(T, B=4, H=5, D=3, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(H, H)) * 0.3, rng.normal(size=(D, H)) * 0.3, rng.normal(size=(B, H)) * 0.5,
            rng.normal(size=(T, B, D)))


# corpus loops whose tape now keeps only the loop-carried state: one array per step after the first
# (the first state is the argument itself), `size` float64s each (hand-derived from the loop body)
STATE_ONLY = {"for_const_range": (4, 5), "rnn": (6, 4), "gradient_descent_unrolled": (10, 5)}


@pytest.mark.parametrize("name", sorted(STATE_ONLY))
def test_corpus_loops_keep_one_state_per_step(name):
    fn, make = FUNCS[name]
    args = make(np.random.default_rng(0))
    steps, size = STATE_ONLY[name]
    rec = memory.tape_record(fn, *args, argnums=tuple(range(len(args))))
    assert rec.arrays == steps - 1
    assert rec.nbytes == (steps - 1) * size * 8
    assert all(shape == (size,) for shape, _, kind in rec.items if kind == "array")


# corpus loops whose record shrank: the arrays (and bytes) the tape keeps, at most these
AT_MOST = {"for_const_range": (3, 120), "nested_matpow": (14, 1008), "while_cube_root": (13, 416),
           "rnn_collect_states": (11, 192), "where_in_loop": (4, 90), "for_over_rows": (0, 0),
           "for_zip_rows_enumerate": (0, 0), "loop_variable_after_loop": (0, 0), "tuple_swap_args": (6, 80)}


@pytest.mark.parametrize("name", sorted(AT_MOST))
def test_corpus_records(name):
    fn, make = FUNCS[name]
    args = make(np.random.default_rng(0))
    rec = memory.tape_record(fn, *args, argnums=tuple(range(len(args))))
    arrays, nbytes = AT_MOST[name]
    assert (rec.arrays, rec.nbytes) <= (arrays, nbytes) and rec.nbytes <= nbytes
    check_grads(fn, args, order=1, modes=("rev",))


def test_tanh_rnn_keeps_one_state_per_step():
    T, B, H = 12, 4, 5
    args = rnn_args(T, B, H)
    rec = memory.tape_record(tanh_rnn, *args, argnums=(0, 1))
    assert rec.arrays == T - 1                      # h before each step but the first (the argument)
    assert rec.nbytes == (T - 1) * B * H * 8         # 1 state per step (the issue asks <= 1.5)
    assert rec.views == 1                            # the argument h, before the first step; xs[t] is
    #                                                  recomputed, not saved
    assert rec.stubs == 2 * (T - 1)                  # h @ w and xs[t] @ u (read for their shape only)
    #                                                  before each step but the first (None then)
    got = s2s.grad(tanh_rnn, argnums=(0, 1))(*args)
    for a, b in zip(got, bptt(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_generated_code_shows_what_is_saved():
    src = s2s.source(s2s.grad(tanh_rnn, argnums=(0, 1)))
    assert "tape.append(rt.shape_stub(" in src
    assert "recomputed, not saved" in src
    assert src.count("tape.append(") == 3 and "ctl" not in src


def test_shape_stub_reduces_a_broadcast_cotangent():
    rng = np.random.default_rng(1)
    x, b = rng.normal(size=(4, 3)), rng.normal(size=(1, 3))
    rec = memory.tape_record(broadcast_in_loop, x, b, argnums=(0, 1))
    assert rec.arrays == 2                                           # h before steps 2 and 3
    assert rec.items.count(((1, 3), "float64", "stub")) == 2         # c, kept for its shape only
    check_grads(broadcast_in_loop, (x, b), order=2, modes=("rev",))


def test_higher_order_and_batched_through_a_slim_tape():
    args = rnn_args(5, B=2, H=3, D=2)
    w = args[0]

    def of_w(w):
        return tanh_rnn(w, *args[1:])
    check_grads(tanh_rnn, args, order=2, modes=("rev",))
    hess = s2s.hessian(tanh_rnn)(*args)
    fd = np.zeros_like(hess)
    eps = 1e-6
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        fd[(...,) + i] = (s2s.grad(tanh_rnn)(w + e, *args[1:]) - s2s.grad(tanh_rnn)(w - e, *args[1:])) / (2 * eps)
    np.testing.assert_allclose(hess, fd, rtol=1e-6, atol=1e-8)
    ws = np.stack([w, 0.5 * w])
    per = s2s.vmap(s2s.grad(tanh_rnn), in_axes=(0, None, None, None))(ws, *args[1:])
    for k in range(2):
        np.testing.assert_allclose(per[k], s2s.grad(tanh_rnn)(ws[k], *args[1:]), rtol=1e-12, atol=1e-14)
    assert of_w(w) == tanh_rnn(*args)
