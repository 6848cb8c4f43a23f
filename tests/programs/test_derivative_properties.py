"""Properties every derivative s2s computes must have, checked on the corpus (control flow, loops,
lists, recursion; a share of it per property, to keep CI short, and for the costliest properties
half of that share by default and the other half with --full) and on op sweep rows whose rules
call runtime helpers, at orders 2 and 3 (issue 27, family 7). They need no
reference: each compares s2s with itself along another path, so they catch what a check against
finite differences at a lower order misses.

- Mode consistency: u . D^k f[v1, ..., v_k] is one number however it is computed: forward over
  forward, reverse over reverse, and every mix (order 2 and 3).
- The Jacobian of the Hessian (a third-derivative tensor) is the same from jacfwd and jacrev.
- A vjp_fn is a function: called twice, or after another call, it gives the same cotangents, and
  it leaves the cotangent it is given unchanged (a backward sweep popped its caller's lists).
"""
import copy
import zlib

import numpy as np
import pytest
from corpus import CORPUS
from op_specs import SPECS
from order3 import compose

import s2s
from s2s.api.entry_points import linear_map
from s2s.base.tree import tree_flatten, tree_map, tree_unflatten

CASES = [pytest.param(fn, mk, id=fn.__name__) for fn, mk in CORPUS]
# op rows whose rules call runtime helpers (products, linear algebra, reductions, shapes), one of each kind
OPS = ["dot", "matmul__batched", "einsum__three", "linalg_inv", "linalg_cholesky", "linalg_eigh", "prod", "var",
       "cov", "linalg_multi_dot", "insert", "trapezoid"]


def _spec(name):
    sp = next(s for s in SPECS if s.id == name)
    args = sp.args(np.random.default_rng(zlib.crc32(sp.id.encode())))
    return compose(sp.fn, len(args), isinstance(sp.fn(*args), tuple)), args


# half of the rows by default (products, the inverse, eigh, a reduction, a shape), the rest with
# --full (CI runs both: every row's rule along three paths)
OP_CASES = [pytest.param(*_spec(n), id=n, marks=[pytest.mark.full] if i % 2 else []) for i, n in enumerate(OPS)]


def _draw(rng, tree):
    return tree_map(lambda x: float(rng.standard_normal()) if isinstance(x, float)
                    else rng.standard_normal(np.shape(x)), tree)


def _vdot(a, b):
    la, lb = tree_flatten(a)[0], tree_flatten(b)[0]
    assert len(la) == len(lb)
    return sum(float(np.sum(np.asarray(x, dtype=float) * np.asarray(y, dtype=float))) for x, y in zip(la, lb))


def _out_like(rng, f, args):
    leaves, tdef = tree_flatten(f(*args))
    return tree_unflatten(tdef, [_draw(rng, x if isinstance(x, float) else np.asarray(x, dtype=float))
                                 for x in leaves])


def _contracted(f, args, u, vs, path):
    """u . D^k f[vs] (k = len(vs)) along `path`: "f" takes a JVP along the next v, "r" a VJP (the
    cotangent: u for the first one, the next v for later ones, paired with what is left)."""
    n, g, cot, rest = len(args), f, u, list(vs)
    for kind in path[:-1]:
        if kind == "f":
            g = linear_map("jvp", g, n, rest.pop())
        else:
            g, cot = linear_map("vjp", g, n, cot), rest.pop()
    last = rest.pop()
    if path[-1] == "f":
        return _vdot(cot, s2s.jvp(g, args, last)[1])
    return _vdot(s2s.vjp(g, *args)[1](cot), last)


def _all_paths(k):
    return ["".join("fr"[(i >> j) & 1] for j in range(k)) for i in range(2 ** k)]


def _consistent(f, args, order, paths):
    rng = np.random.default_rng(order)
    u = _out_like(rng, f, args)
    vs = [tuple(_draw(rng, a) for a in args) for _ in range(order)]
    got = {p: _contracted(f, args, u, vs, p) for p in paths}
    ref = got[paths[0]]
    for p, val in got.items():
        assert abs(val - ref) <= 1e-6 * (1 + abs(ref)), f"path {p}: {val!r}, path {paths[0]}: {ref!r}"


def _as_float(args):
    return tuple(tree_map(lambda x: float(x) if isinstance(x, float) else np.asarray(x, dtype=float), a) for a in args)


@pytest.mark.parametrize("fn, make", CASES[1::2])
def test_modes_agree_at_order_two(fn, make):
    _consistent(fn, _as_float(make(np.random.default_rng(0))), 2, _all_paths(2))


def _halves(cases: list, step: int) -> list:
    """Every `step`-th case, the even ones of those by default and the odd ones marked full (two
    samples of the same corpus share; CI runs both)."""
    return [c if i % 2 == 0 else pytest.param(*c.values, id=c.id, marks=pytest.mark.full)
            for i, c in enumerate(cases[::step])]


@pytest.mark.parametrize("fn, make", _halves(CASES, 3))
def test_modes_agree_at_order_three(fn, make):
    _consistent(fn, _as_float(make(np.random.default_rng(0))), 3, ["fff", "rrr", "rfr"])


@pytest.mark.parametrize("f, args", OP_CASES)
def test_op_modes_agree_at_order_three(f, args):
    _consistent(f, args, 3, ["rrr", "fff", "frr"])


def _scalar(fn):
    """A scalar function of fn's arguments (fn's output may be a number or an array)."""
    def f(x, *rest):
        return np.sum(fn(x, *rest) ** 2)
    return f


# every sixth corpus function whose first argument is an array (the Hessian's variable), half of
# them by default
JAC_CASES = _halves([pytest.param(fn, mk, id=fn.__name__) for fn, mk in CORPUS
                     if isinstance(mk(np.random.default_rng(0))[0], np.ndarray)], 6)


@pytest.mark.parametrize("fn, make", JAC_CASES)
def test_jacobian_of_the_hessian_from_either_mode(fn, make):
    args = _as_float(make(np.random.default_rng(0)))
    f = _scalar(fn)
    fwd = s2s.jacfwd(s2s.hessian(f))(*args)
    rev = s2s.jacrev(s2s.hessian(f))(*args)
    np.testing.assert_allclose(fwd, rev, rtol=1e-7, atol=1e-8 * (1 + np.max(np.abs(rev))))


@pytest.mark.parametrize("fn, make", CASES)
def test_vjp_fn_is_a_function(fn, make):
    args = _as_float(make(np.random.default_rng(0)))
    rng = np.random.default_rng(1)
    for level in range(2):
        out, back = s2s.vjp(fn, *args)
        u1, u2 = _draw(rng, out), _draw(rng, out)
        kept = copy.deepcopy(u1)
        first = back(u1)
        back(u2)
        again = back(u1)
        for a, b in zip(tree_flatten(first)[0], tree_flatten(again)[0]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(tree_flatten(kept)[0], tree_flatten(u1)[0]):
            np.testing.assert_array_equal(a, b)
        assert tree_flatten(kept)[1] == tree_flatten(u1)[1], "vjp_fn changed the cotangent it was given"
        fn = linear_map("vjp", fn, len(args), u2)  # the next level: a VJP as a function of the primals


def _along(fn, args, v):
    """t -> the scalar fn(args + t v), a function of one number (s2s transforms the lambda)."""
    f = _scalar(fn)
    a, d = args, v
    return {1: lambda t: f(a[0] + t * d[0]),
            2: lambda t: f(a[0] + t * d[0], a[1] + t * d[1]),
            3: lambda t: f(a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2])}[len(args)]


def _arrays_only(make):
    return all(isinstance(a, (float, np.ndarray)) for a in _as_float(make(np.random.default_rng(0))))


def _ratio(x):
    return np.exp(x) / x


def call_of_user_function(x):
    """autograd's tanh example's shape: the function differentiated calls another one."""
    return _ratio(x)


def if_both_branches_assign(x):
    if x > 0.0:
        y = x * x * x
    else:
        y = x
    return y * y


def elif_chain_calls(x):
    if x > 2.0:
        y = x
    elif x > 0.0:
        y = _ratio(x) * np.sin(x)
    else:
        y = -x
    return y * x


def if_in_loop_of_callee(x):
    t = x
    for i in range(3):
        if t > 0.5 * i:
            t = t + _ratio(t) * t * 0.1
        else:
            t = t * x
    return t


def _branchy(u):
    return np.tanh(u) * u if u > 0.0 else u * u * u


def conditional_expression_in_callee(x):
    return _branchy(x) * _branchy(x * x)


# functions of one number with an `if` at the top level or in a callee: `grad` applied to them
# directly (the fused forward and backward sweeps, with their tape lists, transformed again)
CALLS_AND_IFS = [pytest.param(f, (0.7,), id=f.__name__) for f in (
    call_of_user_function, if_both_branches_assign, elif_chain_calls, if_in_loop_of_callee,
    conditional_expression_in_callee)]


# every fifth corpus program of arrays: those at 2, 12, 22, ... by default, those at 7, 17, 27, ...
# with --full (CI runs both: two samples of the same corpus, orders 3 and 4 on each)
NESTED_CASES = [pytest.param(*c.values, id=c.id, marks=[pytest.mark.full] if i % 10 == 7 else [])
                for i, c in enumerate([c for c in CASES if _arrays_only(c.values[1])]) if i % 5 == 2]


@pytest.mark.parametrize("fn, make", NESTED_CASES)
def test_nested_grad_agrees_with_forward(fn, make):
    """grad applied k times (each grad transforms the previous one's whole generated function,
    tapes and all, not a vjp's separate sweeps) equals jvp of grad applied k - 1 times, at orders
    k = 3 and 4 along one chain of grads (order 4 transforms the very grad order 3 checked): an
    `if` assigning one variable in both branches gave a wrong fourth derivative (a pop from an
    inactive record list left the popped variable's adjoint live)."""
    args = _as_float(make(np.random.default_rng(0)))
    rng = np.random.default_rng(4)
    g = _along(fn, args, [_draw(rng, a) for a in args])  # grad applied k - 1 times, below
    for order in range(1, 5):
        nxt = s2s.grad(g)
        if order >= 3:
            rev, fwd = float(nxt(0.0)), float(s2s.jvp(g, (0.0,), (1.0,))[1])
            assert abs(rev - fwd) <= 1e-7 * (1 + abs(fwd)), f"order {order}: grad: {rev!r}, jvp: {fwd!r}"
        g = nxt


# order 4 of the two cheapest by default (a call, an if), of the others with --full: every kind
# is checked at order 4 by default by test_nested_grad_through_calls_and_ifs (grad^4 against jvp)
_FOURTH_BY_DEFAULT = ("call_of_user_function", "if_both_branches_assign")


@pytest.mark.parametrize("f, args, order", [
    pytest.param(*c.values, k, id=f"{k}-{c.id}",
                 marks=[pytest.mark.full] if k == 4 and c.id not in _FOURTH_BY_DEFAULT else [])
    for k in (3, 4) for c in CALLS_AND_IFS])
def test_modes_agree_through_calls_and_ifs(f, args, order):
    """u . D^k f[v1, ..., vk] the same along reverse^k, forward^k and alternating modes (order 4 of
    three of the functions with --full)."""
    _consistent(f, args, order, ["r" * order, "f" * order, "rf" * (order // 2) + "r" * (order % 2)])


def _nested_grads_agree(f, x, orders):
    """grad of grad ... of f itself, checked at each of `orders` along one chain of grads (each
    order transforms the very grad the order below checked): grad of the (k-1)-th grad the same
    number as jvp of it and as central differences of it."""
    g, eps = f, 1e-5
    for order in range(1, max(orders) + 1):  # g: grad applied order - 1 times
        nxt = s2s.grad(g)
        if order in orders:
            rev, fwd = nxt(x), s2s.jvp(g, (x,), (1.0,))[1]
            fd = (g(x + eps) - g(x - eps)) / (2 * eps)
            assert abs(rev - fwd) <= 1e-9 * (1 + abs(fwd)), f"order {order}: grad: {rev!r}, jvp: {fwd!r}"
            assert abs(rev - fd) <= 1e-5 * (1 + abs(fd)), f"order {order}: grad: {rev!r}, central differences: {fd!r}"
        g = nxt


@pytest.mark.parametrize("f, args", CALLS_AND_IFS)
def test_nested_grad_through_calls_and_ifs(f, args):
    """Orders 3 and 4 of grad of grad ... of f: at order 4, grad of the third grad (whose backward
    sweep pops the tape lists of the levels below) lost nothing (an adjoint left live past a pop
    gave a wrong fourth derivative)."""
    _nested_grads_agree(f, args[0], (3, 4))


@pytest.mark.full
@pytest.mark.parametrize("f, args", CALLS_AND_IFS)
def test_nested_grad_through_calls_and_ifs_at_order_five(f, args):
    """Order 5 (the same transforms once more, as long as orders 3 and 4 together): with --full."""
    _nested_grads_agree(f, args[0], (5,))
