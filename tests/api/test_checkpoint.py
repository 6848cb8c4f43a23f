"""s2s.checkpoint (issue 30): a helper whose intermediates reverse mode does not keep; its
forward sweep runs again in the backward sweep. Derivatives are the uncheckpointed ones exactly
(the same operations in the same order), and agree with central differences; the record
(`s2s.api.memory.tape_record`) shows what each policy keeps."""
import numpy as np
import pytest

import s2s
from s2s.api import memory
from s2s.test_util import check_grads

P = s2s.checkpoint_policies


def cell(w, u, h, x):
    return np.tanh(h @ w + x @ u)


def named_cell(w, u, h, x):
    a = s2s.checkpoint_name(h @ w, "hw")
    return np.tanh(a + x @ u)


CELLS = {
    "plain": cell,
    "nothing": s2s.checkpoint(cell),
    "nothing_explicit": s2s.checkpoint(cell, policy=P.nothing_saveable, prevent_cse=False, static_argnums=()),
    "dots": s2s.checkpoint(cell, policy=P.dots_saveable),
    "names": s2s.checkpoint(named_cell, policy=P.save_only_these_names("hw")),
}
STEP = {"cell": cell}


def rnn(w, u, h, xs):
    step = STEP["cell"]
    for t in range(xs.shape[0]):
        h = step(w, u, h, xs[t])
    return np.sum(h * h)


def loop_with(kind):
    """rnn whose step is CELLS[kind] (a function of its own per kind, so each compiles apart)."""
    c = CELLS[kind]

    def f(w, u, h, xs):
        for t in range(xs.shape[0]):
            h = c(w, u, h, xs[t])
        return np.sum(h * h)
    f.__name__ = f"rnn_{kind}"
    return f


LOOPS = {k: loop_with(k) for k in CELLS}


@s2s.checkpoint
def decorated(x):
    return np.sin(x) * np.cos(x)


@s2s.checkpoint(policy=P.dots_saveable)
def decorated_dots(a, x):
    return np.tanh(a @ x)


def uses_decorated(x):
    return np.sum(decorated(x) ** 2)


def uses_decorated_dots(a, x):
    return np.sum(decorated_dots(a, x) ** 2)


def args(T=5, B=3, H=4, D=2, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(H, H)) * 0.3, rng.normal(size=(D, H)) * 0.3, rng.normal(size=(B, H)) * 0.5,
            rng.normal(size=(T, B, D)))


@pytest.mark.parametrize("kind", sorted(k for k in CELLS if k != "plain"))
def test_grad_is_the_uncheckpointed_one(kind):
    a = args()
    ref = s2s.grad(LOOPS["plain"], argnums=(0, 1, 2))(*a)
    got = s2s.grad(LOOPS[kind], argnums=(0, 1, 2))(*a)
    for x, y in zip(got, ref):
        np.testing.assert_array_equal(x, y)
    check_grads(LOOPS[kind], a, order=1, modes=("rev",))


# what the record keeps per step besides views of the arguments: the step's `h` (the argument the
# checkpointed call keeps), and what the policy saves (h @ w and x @ u; the named h @ w)
PER_STEP = {"nothing": 1, "nothing_explicit": 1, "dots": 3, "names": 2}


@pytest.mark.parametrize("kind", sorted(PER_STEP))
def test_record_keeps_what_the_policy_saves(kind):
    T, B, H = 6, 3, 4
    a = args(T, B, H)
    rec = memory.tape_record(LOOPS[kind], *a, argnums=(0, 1))
    per = PER_STEP[kind]
    # the first step's h is the argument itself (a view): one state less
    assert rec.arrays == per * T - 1
    assert rec.nbytes == (per * T - 1) * B * H * 8
    plain = memory.tape_record(LOOPS["plain"], *a, argnums=(0, 1))
    assert plain.arrays > rec.arrays or kind == "dots"


def test_decorators_and_direct_calls():
    x = np.linspace(0.1, 1.0, 4)
    np.testing.assert_array_equal(decorated(x), np.sin(x) * np.cos(x))
    np.testing.assert_allclose(s2s.grad(uses_decorated)(x), 2 * np.sin(x) * np.cos(x) * np.cos(2 * x) * 1,
                               rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda v: np.sum(decorated(v)))(x), np.cos(2 * x), rtol=1e-12)
    a = np.random.default_rng(2).normal(size=(3, 4))
    check_grads(uses_decorated_dots, (a, x), order=1, modes=("rev",))


def test_composes_with_jvp_vmap_jit():
    a = args()
    f, ref = LOOPS["nothing"], LOOPS["plain"]
    tangents = tuple(np.ones_like(v) for v in a)
    out, tan = s2s.jvp(f, a, tangents)
    out0, tan0 = s2s.jvp(ref, a, tangents)
    np.testing.assert_allclose(out, out0, rtol=1e-13)
    np.testing.assert_allclose(tan, tan0, rtol=1e-12)
    for kind in ("nothing", "dots"):
        ws = np.stack([a[0], 0.5 * a[0], -a[0]])
        per = s2s.vmap(s2s.grad(LOOPS[kind]), in_axes=(0, None, None, None))(ws, *a[1:])
        for k in range(3):
            np.testing.assert_allclose(per[k], s2s.grad(ref)(ws[k], *a[1:]), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(s2s.jit(s2s.grad(LOOPS[kind]))(*a), s2s.grad(ref)(*a), rtol=1e-12, atol=1e-14)


def test_composes_with_hessian():
    a = args(T=3, B=2, H=2, D=2)
    hess = s2s.hessian(LOOPS["nothing"])(*a)
    np.testing.assert_allclose(hess, s2s.hessian(LOOPS["plain"])(*a), rtol=1e-12, atol=1e-14)
    check_grads(LOOPS["nothing"], a, order=2, modes=("rev",))


def test_hessian_through_a_saving_policy_is_refused():
    with pytest.raises(s2s.S2SError, match="checkpoint"):
        s2s.hessian(LOOPS["dots"])(*args(T=2, B=2, H=2, D=2))


def test_bad_arguments():
    with pytest.raises(s2s.S2SError, match="policy"):
        s2s.checkpoint(cell, policy="dots")
    with pytest.raises(s2s.S2SError, match="static_argnums"):
        s2s.checkpoint(cell, static_argnums=("a",))
    assert s2s.remat is s2s.checkpoint
