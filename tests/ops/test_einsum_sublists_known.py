"""np.einsum's sublist form with sublists that are not literals in the call (issue 27 family 7;
autograd's test_einsum2_*, whose check_grads binds them into a global tuple): tuples in globals,
closures and global tables, locals assigned once to a literal (a literal subscripts string when
transforming), and global lists or parameters once the first sublist shows the form (the string
built when the call runs, so a list changed in place is read as it is then). Reverse and forward
mode against central differences of NumPy's own einsum, vmap and vmap(grad) against a loop."""
import numpy as np
import pytest

import s2s
import s2s.numpy as snp

RNG = np.random.default_rng(7)
SUB_A, SUB_B, SUB_OUT = (0, 1), (1, 2), (0, 2)
LIST_A = [0, 1]
TABLE = (None, (Ellipsis, 0, 1), None, (Ellipsis, 1, 2), (Ellipsis, 0, 2))
SUBS = {"a": (0, 1, 2), "b": (3, 1, 0), "out": (3, 2, 0)}


def global_tuples(a, b):
    return np.sum(np.tanh(np.einsum(a, SUB_A, b, SUB_B, SUB_OUT)) ** 2)


def global_table(a, b):
    return np.sum(np.sin(snp.einsum(a, TABLE[1], b, TABLE[3], TABLE[4])))


def global_dict(a, b):
    return np.sum(np.einsum(a, SUBS["a"], b, SUBS["b"], SUBS["out"]) ** 2)


def local_literals(a, b):
    sa = [0, 1]
    sb = (1, 2)
    return np.sum(np.einsum(a, sa, b, sb) ** 2)  # no output sublist: NumPy's implicit output


def global_list(a, b):
    return np.sum(np.einsum(a, LIST_A, b, [1, 2], [2, 0]) ** 3)


def _closure():
    sa, sb, out = (0, 1), (1, 2), [0, 2]

    def closed(a, b):
        return np.sum(np.cos(np.einsum(a, sa, b, sb, out)))
    return closed


closure = _closure()

SHAPES = {global_tuples: [(2, 3), (3, 4)], global_table: [(2, 2, 3), (2, 3, 4)], global_dict: [(3, 4, 4), (4, 4, 3)],
          local_literals: [(2, 3), (3, 4)], global_list: [(2, 3), (3, 4)], closure: [(2, 3), (3, 4)]}
FNS = list(SHAPES)


def _fd(f, args, k, eps=1e-6):
    x = args[k]
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        hi = list(args)
        lo = list(args)
        hi[k], lo[k] = x + e, x - e
        g[i] = (f(*hi) - f(*lo)) / (2 * eps)
    return g


def _args(f):
    return [RNG.standard_normal(s) for s in SHAPES[f]]


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_grad_matches_central_differences(f):
    args = _args(f)
    got = s2s.grad(f, argnums=(0, 1))(*args)
    for k in range(2):
        np.testing.assert_allclose(got[k], _fd(f, args, k), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_jvp_matches_central_differences(f):
    args, ts = _args(f), _args(f)
    _, tangent = s2s.jvp(f, tuple(args), tuple(ts))
    hi = f(*[x + 1e-6 * t for x, t in zip(args, ts)])
    lo = f(*[x - 1e-6 * t for x, t in zip(args, ts)])
    np.testing.assert_allclose(tangent, (hi - lo) / 2e-6, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_vmap_and_vmap_of_grad_match_a_loop(f):
    a = RNG.standard_normal((3,) + SHAPES[f][0])
    b = RNG.standard_normal(SHAPES[f][1])
    np.testing.assert_allclose(s2s.vmap(f, in_axes=(0, None))(a, b), [f(x, b) for x in a], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f), in_axes=(0, None))(a, b),
                               np.stack([_fd(f, [x, b], 0) for x in a]), rtol=1e-6, atol=1e-7)


def output_parameter(a, out):
    return np.sum(np.einsum(a, [0, 1], out) ** 2)


def test_output_sublist_given_when_called():
    a = RNG.standard_normal((3, 4))
    for out in ((1, 0), [0, 1], (1,)):
        got = s2s.grad(output_parameter)(a, out)
        np.testing.assert_allclose(got, _fd(lambda x: output_parameter(x, out), [a], 0), rtol=1e-6, atol=1e-7)


def test_a_global_list_changed_in_place_is_read_when_the_call_runs():
    a, b = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 4))
    g = s2s.grad(global_list)
    first = g(a, b)
    np.testing.assert_allclose(first, _fd(global_list, [a, b], 0), rtol=1e-6, atol=1e-7)
    LIST_A[:] = [1, 0]  # a transposed: the same compiled code must follow
    try:
        np.testing.assert_allclose(g(a, b), _fd(global_list, [a, b], 0), rtol=1e-6, atol=1e-7)
        assert not np.allclose(g(a, b), first)
    finally:
        LIST_A[:] = [0, 1]


def bad_entry(a):
    return np.sum(np.einsum(a, LIST_A, [0, 60]))


def test_bad_sublists_are_errors_naming_the_entry():
    LIST_A[:] = [0, "x"]
    try:
        with pytest.raises(s2s.S2SError, match="axis numbers"):
            s2s.grad(global_list)(RNG.standard_normal((3, 3)), RNG.standard_normal((3, 4)))
    finally:
        LIST_A[:] = [0, 1]
    with pytest.raises(s2s.S2SError, match="axis numbers 0..51"):
        s2s.grad(bad_entry)(RNG.standard_normal((3, 3)))
