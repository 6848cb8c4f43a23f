"""vmap of grad (and of jit, jacfwd, grad of grad) through an `if` on a constant flag: a default
argument, a module constant, a flag passed to a callee, `is None`, a local flag (issue 27). The
flag is the same for every example, so the branch is not batched: each result against a loop of
the plain derivative over the examples, and the plain derivative against central differences."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError

FLAG = True
MODE = "tanh"


def default_flag(x, flag=True):
    if flag:
        y = np.sin(x) * x
    else:
        y = x
    return y


def module_constant(x):
    y = x * x
    if FLAG and MODE == "tanh":
        y = np.tanh(y) * x
    elif MODE == "sin":
        y = np.sin(y)
    return y


def _scaled(x, flag=True):
    if flag:
        return np.sin(x) * x
    return x


def callee_flag(x):
    return _scaled(x) + _scaled(x, flag=False) + _scaled(x, False) * x


def none_default(x, flag=None):
    if flag is None:
        return np.sin(x) * np.exp(x)
    return x


def flag_in_loop(x, n=3, flag=True):
    for i in range(n):
        if flag and i > 0:
            x = np.sin(x) + x * x
    return x


def local_flag(x):
    flag = False
    if not flag:
        y = np.cos(x) * x
    else:
        y = x
    return y * x


FUNCS = [default_flag, module_constant, callee_flag, none_default, flag_in_loop, local_flag]
XS = np.array([0.1, 0.5, 0.9, -0.4])


def _fd(f, xs, eps=1e-6):
    return np.array([(f(x + eps) - f(x - eps)) / (2 * eps) for x in xs])


@pytest.mark.parametrize("f", FUNCS)
@pytest.mark.parametrize("how", ["vmap(grad)", "jit(vmap(grad))", "vmap(jit(grad))", "vmap(jacfwd)",
                                 "vmap(value_and_grad)"])
def test_vmap_of_derivative_through_a_constant_flag(f, how):
    build = {"vmap(grad)": lambda: s2s.vmap(s2s.grad(f)), "jit(vmap(grad))": lambda: s2s.jit(s2s.vmap(s2s.grad(f))),
             "vmap(jit(grad))": lambda: s2s.vmap(s2s.jit(s2s.grad(f))), "vmap(jacfwd)": lambda: s2s.vmap(s2s.jacfwd(f)),
             "vmap(value_and_grad)": lambda: (lambda xs: s2s.vmap(s2s.value_and_grad(f))(xs)[1])}[how]
    loop = np.array([s2s.grad(f)(x) for x in XS])
    np.testing.assert_allclose(build()(XS), loop, rtol=1e-12)
    np.testing.assert_allclose(loop, _fd(f, XS), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [default_flag, module_constant, none_default, flag_in_loop, local_flag])
def test_vmap_of_second_derivative_through_a_constant_flag(f):
    got = s2s.vmap(s2s.grad(s2s.grad(f)))(XS)
    np.testing.assert_allclose(got, _fd(s2s.grad(f), XS), rtol=1e-6, atol=1e-8)


# vmap(grad(grad(f))) runs as grad of the batched grad(f): its `+` cotangent helper
# (rt.operand_cotangent, for when `+` joins sequences) ran once per example (rt.map_examples), which
# has no derivative; vmap now writes it for arrays with primitives that have derivatives
def test_vmap_of_second_derivative_through_a_callee_flag():
    got = s2s.vmap(s2s.grad(s2s.grad(callee_flag)))(XS)
    np.testing.assert_allclose(got, _fd(s2s.grad(callee_flag), XS), rtol=1e-6, atol=1e-8)


def lambda_default_is_a_local_function(x):
    g = lambda t: t * 2.0  # noqa: E731
    h = lambda u, k=g: k(u)  # noqa: E731
    return np.sin(h(x))


def lambda_default_is_a_local_closure(x):
    w = x * 3.0
    g = lambda t: t * w  # noqa: E731
    h = lambda u, k=g: k(u) + u  # noqa: E731
    return np.sin(h(x))


def lambda_default_passed_explicitly(x):
    g = lambda t: t * 2.0  # noqa: E731
    h = lambda u, k=g: k(u)  # noqa: E731
    return h(x, g)


@pytest.mark.parametrize("f", [lambda_default_is_a_local_function, lambda_default_is_a_local_closure])
def test_lambda_default_that_is_a_local_function(f):
    """`lambda u, k=g: k(u)` with `g` a local function: the default is bound as the function itself
    (it was refused as a function used as a value, and a NameError in generated code before)."""
    fd = _fd(f, XS)
    np.testing.assert_allclose([s2s.grad(f)(x) for x in XS], fd, rtol=1e-6)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XS), fd, rtol=1e-6)
    np.testing.assert_allclose(s2s.jit(f)(XS[0]), f(XS[0]), rtol=1e-12)


def test_lambda_default_that_is_a_function_passed_explicitly_is_refused():
    """Such a default is no parameter of the lifted function any more (as a snapshot of a local):
    passing it is refused by name, never a call of the wrong function."""
    with pytest.raises(S2SError):
        s2s.grad(lambda_default_passed_explicitly)(0.3)


def callee_default_flag(x):
    return np.cos(_scaled(x))


def callee_default_flag_alone(x):
    return _scaled(x)


@pytest.mark.parametrize("f", [callee_default_flag, callee_default_flag_alone])
def test_vmap_of_second_derivative_through_a_callee_default_flag(f):
    """vmap(grad(grad(f))) runs as the derivative of the batched grad(f), whose callee's backward
    sweep calls rt.batched_unbroadcast: it has its derivative rules now (it was refused by name)."""
    got = s2s.vmap(s2s.grad(s2s.grad(f)))(XS)
    np.testing.assert_allclose(got, _fd(s2s.grad(f), XS), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("flags", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("vs, likes", [((3, 4), (4,)), ((3, 4), (1, 4)), ((2, 3, 4), (3, 1)), ((4,), (4,))])
def test_batched_unbroadcast_t_is_its_transpose(flags, vs, likes):
    """<u, unbroadcast(v)> = <unbroadcast_t(u), v> for every batching of v and like (n = 5)."""
    from s2s import runtime as rt
    rng = np.random.default_rng(0)
    v = rng.standard_normal(((5,) if flags[0] else ()) + vs)
    like = np.zeros(((5,) if flags[1] else ()) + likes)
    out = rt.batched_unbroadcast(flags, v, like)
    u = rng.standard_normal(np.shape(out))
    back = rt.batched_unbroadcast_t(flags, u, v, like)
    assert np.shape(back) == np.shape(v)
    np.testing.assert_allclose(np.sum(u * out), np.sum(back * v), rtol=1e-12)


def scan_of_a_number(x):
    return np.sum(np.tanh(np.cumprod(1.0 + 0.1 * x[0], axis=-1)) * x) + np.sum(np.cumsum(x[0] * x[1], axis=0) * x)


def test_scan_of_a_zero_d_example_along_an_axis():
    """np.cumsum/cumprod of a number along axis 0 or -1 scans it as the flattened array (shape
    (1,)): under vmap, axis -1 of the batch ran across the examples (a wrong number), axis 0 was out
    of bounds, and the cotangent of the number had shape (1,) (found by the fuzzer)."""
    xs = np.array([[0.64, 0.57, -0.63], [1.28, 1.14, -1.26]])
    np.testing.assert_allclose(s2s.vmap(scan_of_a_number)(xs), [scan_of_a_number(x) for x in xs], rtol=1e-12)
    e = np.eye(3)
    for x in xs:
        fd = [(scan_of_a_number(x + 1e-6 * d) - scan_of_a_number(x - 1e-6 * d)) / 2e-6 for d in e]
        np.testing.assert_allclose(s2s.grad(scan_of_a_number)(x), fd, rtol=1e-6)


def test_vmap_of_grad_of_a_scan_of_a_zero_d_example():
    """The batched rt.cumsum_vjp saw the batch (n,) as its `like` and scanned the cotangent across
    the examples (a crash); a scan helper of a 0-d example now runs per example."""
    xs = np.array([[0.64, 0.57, -0.63], [1.28, 1.14, -1.26]])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(scan_of_a_number))(xs), [s2s.grad(scan_of_a_number)(x) for x in xs],
                               rtol=1e-12)


def sequence_or_array_sum(x):
    parts = _pieces(x) + _pieces(x * 0.5)  # tuples: `+` concatenates
    return np.sum(parts[0] * parts[3]) + np.sum(_scaled(x) + _scaled(x, False) * x)


def _pieces(v):
    return (np.sin(v), v * v)


def test_vmap_of_grad_through_tuple_concatenation_and_array_sums():
    """`+` of call results: tuples concatenate (their cotangent split by structure, per example)
    and arrays broadcast (the batched rule), in one function."""
    got = s2s.vmap(s2s.grad(sequence_or_array_sum))(XS)
    np.testing.assert_allclose(got, _fd(sequence_or_array_sum, XS), rtol=1e-6, atol=1e-8)


def test_vmap_of_second_derivative_through_tuple_concatenation():
    """The per-example split of a tuple's cotangent (rt.map_examples) is differentiated from its
    op's rules example by example: the second derivative matches differences of the first."""
    got = s2s.vmap(s2s.grad(s2s.grad(sequence_or_array_sum)))(XS)
    np.testing.assert_allclose(got, _fd(s2s.grad(sequence_or_array_sum), XS), rtol=1e-6, atol=1e-8)
