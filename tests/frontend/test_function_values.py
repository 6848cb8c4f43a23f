"""Functions as values wherever JAX and autograd programs put them (issue 28): lambdas passed as
arguments or kept in tuples, lists and dicts, NumPy functions in locals, `getattr(np, name)`,
partials made inside the function, defaults that capture a loop variable, `**kwargs`
parameters, generators, `*x.shape`, ufunc methods, `np.vectorize`/`apply_along_axis`/
`piecewise`. Each program is checked under grad (central finite differences), jvp (finite
differences along a direction), grad of grad (finite differences of the gradient), vmap (a
Python loop over examples), vmap of grad (a loop of finite differences) and jit (the plain
function); of the two second-order transforms, each program takes one by default and the other
with --full."""
import functools
import importlib.util
import operator

import numpy as np
import pytest

import s2s
import s2s.numpy as jnp

# ---------------------------------------------------------------- helpers the programs call


def apply(f, v):
    return f(v)


def compose(f, g, v):
    return f(g(v))


def power_sum(v, p=2.0, scale=1.0):
    return np.sum(scale * v ** p)


def affine(a, v, shift=1.0):
    return a * v + shift


def cube(v):
    return v ** 3


# ---------------------------------------------------------------- the programs: x -> float


def lambda_arg(x):
    return np.sum(apply(lambda v: v ** 2, x))


def lambda_closure_arg(x):
    s = x[0]
    return np.sum(apply(lambda v: np.sin(v) * s, x))


def lambdas_in_tuple(x):
    fs = (lambda v: v ** 2, lambda v: np.sin(v))
    return np.sum(fs[0](x) * fs[1](x))


def lambdas_in_list_loop(x):
    fs = [lambda v: v ** 2, np.cos, cube]
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


def dict_of_functions(x):
    k = "a"
    table = {"a": np.sin, "b": np.cos}
    return np.sum(table[k](x) + {"a": np.sin, "b": np.tanh}["b"](x))


def numpy_function_local(x):
    act = np.tanh
    return np.sum(act(x) * act(2.0 * x))


def numpy_function_local_passed(x):
    act = np.tanh
    return np.sum(apply(act, x) + compose(np.sin, act, x))


def getattr_constant(x):
    name = "tanh"
    return np.sum(getattr(np, name)(x) + getattr(np, "sin")(x))  # noqa: B009


def partial_inside(x):
    g = functools.partial(power_sum, p=3.0)
    h = functools.partial(affine, 2.0)
    return g(x) + np.sum(h(x)) + apply(functools.partial(power_sum, scale=0.5), x)


def partial_inside_of_local(x):
    w = x[1]
    g = functools.partial(affine, w)
    return np.sum(g(x, shift=w) ** 2)


PARTIAL = functools.partial(power_sum, p=3.0)


def partial_global_with_defaults(x):
    return PARTIAL(x) + functools.partial(affine, 2.0)(x)[0]


def nested_def_default_loop(x):
    total = 0.0
    for k in range(3):
        def term(u, k=k):
            return u ** (k + 1)

        total = total + np.sum(term(x))
    return total


def stax_like_apply(params, inputs, **kwargs):
    return np.tanh(inputs * params)


def kwargs_callee(x):
    return np.sum(stax_like_apply(x, x, rng=None) + stax_like_apply(2.0, x))


def _serial(*layers):  # stax.serial's shape: the keyword popped first, the layers zipped with their params
    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        scale = kwargs.pop("scale", 1.0)
        shifts = (0.0, 0.5) if rng is None else (1.0, -1.0)
        for fun, param, shift in zip(layers, params, shifts):
            inputs = fun(param, inputs, **kwargs) * scale + shift
        return inputs
    return apply_fun


def _dense(w, x, **kwargs):
    return np.tanh(w * x)


def _wave(w, x, **kwargs):
    return np.sin(x + w)


SERIAL = _serial(_dense, _wave)


def serial_kwargs_pop(x):
    return np.sum(SERIAL((1.5, 0.3), x, rng=None, scale=2.0)) + np.sum(SERIAL((0.5, 0.1), x, rng=1))


def _term(g, a, b, c):
    return g(a) * b + c


def _vmapped_star(g, xs, params):
    vf = s2s.vmap(functools.partial(_term, g), in_axes=(0, None, None))
    return np.mean(vf(xs, *params))  # as many values as the vmapped partial takes


def star_into_vmapped_partial(x):
    return _vmapped_star(np.sin, x, (x[0], x[1] * x))


def _layers(w):
    for k in range(2):
        yield w * (k + 1.0)


def generator_loop(x):
    total = 0.0
    for layer in _layers(x):
        total = total + np.sum(np.sin(layer))
    return total


def make_layers(shapes):
    def unpack(w):
        for m, n in shapes:
            yield w[:m * n].reshape((m, n)), w[m * n:m * n + n]
            w = w[(m + 1) * n:]
    return unpack


UNPACK = make_layers([(1, 2), (2, 1)])  # 1*2 + 2 + 2*1 + 1 = 7 weights; X has 4, so two copies and less


def generator_nested(x):
    w = np.concatenate([x, x[:3]])
    h = np.ones((3, 1)) * 0.5
    for W, b in UNPACK(w):
        h = np.tanh(h @ W + b)
    return np.sum(h)


def star_shape(x):
    rs = np.random.RandomState(0)
    eps = rs.randn(*x.shape)
    return np.sum(eps * x ** 2 + np.zeros((*x.shape,)) + np.reshape(x, (*x.shape, 1))[:, 0] ** 3)


def tolist_loop(x):
    total = 0.0
    for v in x.tolist():
        total = total + v * v
    return total


def ufunc_methods(x):
    a = np.add.reduce(x ** 2)
    b = np.add.accumulate(x)
    c = np.multiply.outer(x, x)
    d = np.multiply.reduce(x)
    return a + np.sum(b * b) + np.sum(np.sin(c)) + d


def ufunc_at(x):
    y = np.zeros(4)
    np.add.at(y, np.array([0, 1, 1, 3]), x)
    return np.sum(y ** 2)


def _scalar_fn(v):
    if v > 0.0:
        return v * v
    return np.sin(v)


def vectorize(x):
    return np.sum(np.vectorize(_scalar_fn)(x))


def apply_along_axis(x):
    m = np.outer(x, x[::-1])
    return np.sum(np.apply_along_axis(lambda r: np.sum(r ** 2), 1, m))


def piecewise(x):
    return np.sum(np.piecewise(x, [x < 0.0, x >= 0.0], [lambda v: v ** 2, lambda v: np.sin(v)]))


def lax_switch(x):
    w = x[0]
    branches = (lambda v: v ** 2, np.sin, lambda v: np.cos(v) * w)
    k = (x[1] > 0.0) * 1
    return np.sum(s2s.lax.switch(1, branches, x)) + np.sum(s2s.lax.switch(2, branches, x)) \
        + np.sum(s2s.lax.switch(k, [np.tanh, lambda v: v * w], x))


def tree_util_inside(x):
    params = {"w": x, "b": x[0]}
    scaled = s2s.tree_util.tree_map(lambda p: p * 2.0, params)
    leaves = s2s.tree_util.tree_leaves(scaled)
    return np.sum(leaves[0] ** 2) + np.sum(leaves[1] * scaled["w"])


def batched(f, xs):
    return s2s.jit(s2s.vmap(f))(xs)


def jit_vmap_of_function_argument(x):
    return np.sum(batched(np.sin, x) + batched(lambda v: v * x[0], x))


def tolist_nested(x):
    m = np.outer(x, x[::-1]).tolist()  # lists of lists of the elements
    s = np.sum(x[:2]).tolist()  # a 0-d array's tolist is its number
    return m[0][1] * m[2][3] + sum(m[1]) + np.sin(m[3][3]) * s + np.sum(np.array(x.tolist()) ** 3)


def vectorize_local_two_arguments(x):
    vf = np.vectorize(lambda a, b: a * b if a > 0.0 else np.sin(b))
    s = x[1]
    return np.sum(vf(x, x[::-1])) + np.sum(vf(x[0], x)) + np.sum(np.vectorize(lambda a: a * s)(np.outer(x, x)) ** 2) \
        + np.sum(np.vectorize(np.tanh)(x)) + np.sum(np.vectorize(np.sinc)(x))


SQUARE_POSITIVE = np.vectorize(lambda v: v * v if v > 0.0 else -v)


@np.vectorize
def scaled_or_sine(v, w):
    return w * v if v > 0.0 else np.sin(v)


def vectorize_module_level(x):
    return np.sum(SQUARE_POSITIVE(x)) + np.sum(scaled_or_sine(x, x[::-1])) + np.sum(apply(SQUARE_POSITIVE, x) ** 2)


def jnp_spellings(x):  # JAX's names for them, from s2s.numpy
    return jnp.sum(jnp.piecewise(x, [x < 0.0], [lambda v: v ** 2, jnp.sin])) \
        + jnp.sum(jnp.vectorize(lambda v: v * v)(x)) + jnp.sum(jnp.apply_along_axis(jnp.cumsum, 0, x) ** 2)


def piecewise_otherwise_and_constants(x):
    a = np.piecewise(x, [x < 0.0, x > 1.0], [lambda v: v ** 2, np.sin, lambda v: 3.0 * v])  # the last: elsewhere
    b = np.piecewise(x, [x < 0.0], [0.5, lambda v: v ** 2])  # a number is that value there
    c = np.piecewise(x, [x < 0.0], [lambda v, k: k * v, lambda v, k: v ** 2 * k], x[0])  # extra arguments
    return np.sum(a + b * c)


def apply_along_axis_rows_and_args(x):
    m = np.stack([x, x ** 2, np.sin(x)])
    r = np.apply_along_axis(lambda r: r[::-1] * r[0], 0, m)  # a row's result is a vector: axis 0 again
    s = np.apply_along_axis(lambda r, a: np.sum(r * a), 1, m, x[1])
    return np.sum(r * np.arange(12.0).reshape(3, 4)) + np.sum(s ** 2)


def tree_map_is_leaf_and_reduce(x):
    tree = {"a": (x, x[1:]), "b": [np.sin(x)]}
    pairs = s2s.tree_util.tree_map(lambda t: t[0] * np.sum(t[1]), tree, is_leaf=lambda t: isinstance(t, tuple))
    prods = s2s.tree_util.tree_map(np.multiply, tree, s2s.tree_util.tree_map(np.cos, tree))
    leaves, _ = s2s.tree_util.tree_flatten([(x, 2.0 * x), {"k": x[:2]}], is_leaf=lambda t: isinstance(t, tuple))
    return np.sum(pairs["a"]) + s2s.tree_util.tree_reduce(lambda acc, v: acc + np.sum(v ** 2), prods, 0.0) \
        + s2s.tree_util.tree_reduce(operator.mul, [x[0], x[1] * x[2]]) + np.sum(leaves[0][0] * leaves[0][1])


PROGRAMS = [lambda_arg, lambda_closure_arg, lambdas_in_tuple, lambdas_in_list_loop, dict_of_functions,
            numpy_function_local, numpy_function_local_passed, getattr_constant, partial_inside,
            partial_inside_of_local, partial_global_with_defaults, nested_def_default_loop,
            jit_vmap_of_function_argument, kwargs_callee, lax_switch, ufunc_methods, ufunc_at, star_shape,
            generator_loop, serial_kwargs_pop, star_into_vmapped_partial, generator_nested, tolist_loop,
            tree_util_inside, vectorize, apply_along_axis, piecewise, tolist_nested, vectorize_local_two_arguments,
            piecewise_otherwise_and_constants, apply_along_axis_rows_and_args, tree_map_is_leaf_and_reduce,
            vectorize_module_level, jnp_spellings]
X = np.array([0.7, -0.4, 1.3, 0.25])
XS = np.array([[0.7, -0.4, 1.3, 0.2], [0.1, 0.9, -0.8, 0.5], [-1.2, 0.3, 0.6, -0.3]])
H = 1e-6


def _fd_grad(f, x):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = H
        out[i] = (f(x + e) - f(x - e)) / (2 * H)
    return out


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_matches_finite_differences(f):
    np.testing.assert_allclose(s2s.grad(f)(X), _fd_grad(f, X), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_matches_finite_differences(f):
    v = np.array([0.3, -1.1, 0.5, 0.8])
    y, dy = s2s.jvp(f, (X,), (v,))
    assert np.isclose(y, f(X), rtol=1e-12)
    np.testing.assert_allclose(dy, (f(X + H * v) - f(X - H * v)) / (2 * H), rtol=1e-6, atol=1e-7)


def _second_order(which: int) -> list:
    """The programs for one of the two second-order transforms: every other program by default
    (which = 0: those at even places, for grad of grad; 1: at odd places, for vmap of grad), the
    rest with --full (CI runs both), so every program is transformed twice on every run."""
    return [pytest.param(f, id=f.__name__, marks=[] if i % 2 == which else pytest.mark.full)
            for i, f in enumerate(PROGRAMS)]


@pytest.mark.parametrize("f", _second_order(0))
def test_grad_of_grad_matches_finite_differences(f):
    v = np.array([0.3, -1.1, 0.5, 0.8])
    hv = s2s.grad(lambda x: np.sum(s2s.grad(f)(x) * v))(X)
    g = s2s.grad(f)
    want = np.array([np.sum((g(X + H * e) - g(X - H * e)) * v) / (2 * H) for e in np.eye(X.size)])
    np.testing.assert_allclose(hv, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_vmap_matches_a_loop(f):
    np.testing.assert_allclose(s2s.vmap(f)(XS), [f(x) for x in XS], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f", _second_order(1))
def test_vmap_of_grad_matches_a_loop_of_finite_differences(f):
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XS), [_fd_grad(f, x) for x in XS], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jit_matches_the_plain_function(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)


# ---------------------------------------------------------------- transforms given function values


def test_grad_of_a_partial_keeps_the_targets_other_defaults():
    np.testing.assert_allclose(s2s.grad(PARTIAL)(X), 3.0 * X ** 2, rtol=1e-12)
    p = functools.partial(affine, 2.0)
    y, dy = s2s.jvp(p, (X,), (np.ones_like(X),))
    np.testing.assert_allclose(y, 2.0 * X + 1.0)
    np.testing.assert_allclose(dy, 2.0 * np.ones_like(X))


def scaled_apply(g, v):
    return g(v) * 2.0


def test_vmap_of_a_partial_binding_a_function():
    got = s2s.vmap(functools.partial(scaled_apply, np.sin))(XS)
    np.testing.assert_allclose(got, [scaled_apply(np.sin, x) for x in XS], rtol=1e-12)
    got = s2s.grad(lambda x: np.sum(s2s.vmap(functools.partial(scaled_apply, np.tanh))(x)))(XS)
    np.testing.assert_allclose(got, 2.0 / np.cosh(XS) ** 2, rtol=1e-10)


def test_a_function_given_to_a_transform_as_an_argument_is_refused_with_what_to_write():
    with pytest.raises(s2s.S2SError, match=r"(?s)`g` is a parameter.*functools.partial") as e:
        s2s.jit(s2s.vmap(scaled_apply, in_axes=(None, 0)))(np.sin, XS)
    assert "test_function_values.py" in str(e.value)


def test_kwargs_parameters_on_the_transformed_function():
    w = np.array([0.5, -1.0, 2.0, 0.1])
    got = s2s.grad(lambda p: np.sum(stax_like_apply(p, X, rng=None)))(w)
    np.testing.assert_allclose(got, X / np.cosh(w * X) ** 2, rtol=1e-10)
    np.testing.assert_allclose(s2s.jit(stax_like_apply)(w, X), np.tanh(w * X), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(stax_like_apply, in_axes=(None, 0))(w, XS), np.tanh(w * XS), rtol=1e-12)
    bound = functools.partial(stax_like_apply, rng=None)
    np.testing.assert_allclose(s2s.jit(bound)(w, X), np.tanh(w * X), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda p: np.sum(bound(p, X)))(w), X / np.cosh(w * X) ** 2, rtol=1e-10)
    with pytest.raises(s2s.S2SError, match=r"functools.partial\(stax_like_apply, rng=...\)"):
        s2s.jit(stax_like_apply)(w, X, rng=None)


def kw_scaled(x, **kw):
    return np.sum(x * kw.get("scale", 1.0))


@pytest.mark.parametrize("transform", [s2s.grad, s2s.jit, s2s.vmap])
def test_keywords_collected_by_kwargs_at_the_top_level_are_taken_or_refused(transform):
    try:
        got = transform(kw_scaled)(X, scale=3.0)
    except s2s.S2SError as e:
        assert "functools.partial" in str(e)
        return
    want = {s2s.grad: 3.0 * np.ones_like(X), s2s.jit: 3.0 * np.sum(X), s2s.vmap: 3.0 * X}[transform]
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------- what cannot be resolved is refused


def function_from_data(x, k):
    fs = [np.sin, np.cos]
    return np.sum(fs[k](x))


def function_rebound_in_branch(x):
    f = np.sin
    if x[0] > 0:
        f = np.cos
    return np.sum(f(x))


ROWS_SUMMED = np.vectorize(np.sum, signature="(n)->()")


def vectorize_with_signature(x):
    return np.sum(np.vectorize(lambda r: np.sum(r), signature="(n)->()")(np.outer(x, x)))


def vectorize_with_excluded(x):
    return np.sum(np.vectorize(lambda v, k: v * k, excluded={1})(x, 2.0))


def module_vectorize_with_signature(x):
    return np.sum(ROWS_SUMMED(np.outer(x, x)))


def rows_mapped_by_a_parameter(x, k):
    return np.sum(np.apply_along_axis(k, 0, np.outer(x, x)))


def leaves_mapped_by_a_parameter(x, k):
    return np.sum(s2s.tree_util.tree_map(k, (x, x))[0])


@pytest.mark.parametrize("f, words", [(function_from_data, "index"), (function_rebound_in_branch, "`f`"),
                                      (rows_mapped_by_a_parameter, "`k` is a parameter"),
                                      (leaves_mapped_by_a_parameter, "`k` is a parameter"),
                                      (vectorize_with_signature, "`signature=`"),
                                      (vectorize_with_excluded, "`excluded=`"),
                                      (module_vectorize_with_signature, "`ROWS_SUMMED` is an np.vectorize")])
def test_unresolvable_function_values_are_refused_at_the_line(f, words):
    with pytest.raises(s2s.S2SError) as e:
        s2s.grad(f)(X, 1) if f is function_from_data else s2s.grad(f)(X, np.sin) if "parameter" in words \
            else s2s.grad(f)(X)
    assert "test_function_values.py" in str(e.value) and words in str(e.value)


def _scaled_sin(a, x):
    return a * np.sin(x)


def transform_local_read_after_a_rebinding(x):
    a = 2.0
    vf = s2s.vmap(functools.partial(_scaled_sin, a))
    a = 3.0
    return np.sum(vf(x)) + a


def test_a_transform_kept_in_a_local_is_called_only_when_what_it_reads_is_bound_once():
    np.testing.assert_allclose(s2s.grad(star_into_vmapped_partial)(X), _fd_grad(star_into_vmapped_partial, X),
                               rtol=1e-6, atol=1e-7)
    with pytest.raises(s2s.S2SError, match="test_function_values.py"):  # never the partial of the new `a`
        s2s.grad(transform_local_read_after_a_rebinding)(X)


# A callee with a function-valued default is specialized on that function (idioms.specialize):
# its other defaults were re-evaluated from their source in the callee's globals and closure, not
# where the def ran, so a local the default read was missing (a NameError) or, when a global of
# that name existed, silently replaced by the global (a wrong derivative: found by the fuzzer's
# fn_default block). Defaults are now the values the def computed.
scale = 100.0


def _tanh0(t):
    return np.tanh(t)


def default_reads_a_local_shadowing_a_global(x):
    scale = 2.0
    h = lambda u, kf=_tanh0, c=scale: kf(u) * c  # noqa: E731
    return s2s.grad(lambda v: np.sum(h(v)))(x)


def default_is_a_local_function(x):
    gl = lambda tt: np.tanh(tt * 2.0) + 0.1 * x  # noqa: E731
    hl = lambda uu, kf=gl, sc=x * 0.5: kf(uu) * sc + uu  # noqa: E731
    return s2s.grad(lambda v: np.sum(hl(v)))(x)


@pytest.mark.parametrize("f, want", [
    (default_reads_a_local_shadowing_a_global, lambda x: 2.0 * (1 - np.tanh(x) ** 2)),
    (default_is_a_local_function, lambda x: 2.0 * (1 - np.tanh(2.0 * x) ** 2) * 0.5 * x + 1.0)])
def test_defaults_are_the_values_the_def_computed(f, want):
    x = np.array([0.3, -0.2, 0.7])
    np.testing.assert_allclose(f(x), want(x), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(f)(x), want(x), rtol=1e-12)
    fd = np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(s2s.jacrev(f)(x), fd, rtol=1e-5, atol=1e-7)


def yields_by_match(x, k):
    match k:
        case 1:
            yield x * 2.0
        case _:
            yield x * 3.0


def sums_a_matched_generator(x):
    return np.sum(sum(yields_by_match(x, 1)))


def test_a_generator_with_match_is_refused_at_its_line():
    """Guards a crash (AttributeError in the code printer) on a generator holding `match`."""
    with pytest.raises(s2s.S2SError, match=r"test_function_values.py:\d+(.|\n)*`match` statement"):
        s2s.grad(sums_a_matched_generator)(X)


def test_installed_packages_are_not_looked_into_by_the_cache_key(tmp_path):
    """Guards a crash under pytest 9.2: assertion rewriting puts `_pytest.assertion.rewrite` in a test
    module's globals, and the key walked into pytest's own generators. Installed modules and the
    standard library are keyed by identity; a user's module is looked into."""
    import json

    import _pytest.assertion.util

    from s2s.compiler import cachekey
    assert cachekey._is_library(json) and cachekey._is_library(_pytest.assertion.util)
    (tmp_path / "users_module.py").write_text("def f(x):\n    return x\n")
    spec = importlib.util.spec_from_file_location("users_module", tmp_path / "users_module.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert not cachekey._is_library(mod)


def asserts_with_rewriting(x):
    y = np.sin(x)
    assert np.all(np.abs(y) <= 1.0), "sine is bounded"
    return np.sum(y * y)


def test_a_function_with_a_rewritten_assert_is_transformed():
    np.testing.assert_allclose(s2s.grad(asserts_with_rewriting)(X), np.sin(2 * X), rtol=1e-12)
