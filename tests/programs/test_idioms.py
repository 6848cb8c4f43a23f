"""Python idioms of real numerical code (tests/corpus_idioms.py): derivatives against finite
differences at order 2 in both modes, values against the plain function, random streams consumed
exactly as the plain function consumes them, and the documented errors."""

import copy
import functools

import numpy as np
import pytest
from corpus_idioms import IDIOMS, Model, data_loss, mlp

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads

IDS = [name for name, _, _ in IDIOMS]


def _args(make_args, seed=0):
    return make_args(np.random.default_rng(seed))


def test_idiom_corpus_is_uniquely_named():
    assert len(IDS) == len(set(IDS)) and len(IDS) >= 25


@pytest.mark.parametrize("name, fn, make_args", IDIOMS, ids=IDS)
def test_check_grads_order2_both_modes(name, fn, make_args):
    check_grads(fn, _args(make_args), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name, fn, make_args", IDIOMS, ids=IDS)
def test_value_and_grad_value_matches_plain_call(name, fn, make_args):
    for seed in (0, 1):
        args = _args(make_args, seed)
        want = fn(*copy.deepcopy(args))
        value, _ = s2s.value_and_grad(fn)(*args)
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- sampling: one draw per call

class CountingState(np.random.RandomState):
    """A RandomState that counts its draws."""

    calls = 0

    def randn(self, *shape):
        CountingState.calls += 1
        return super().randn(*shape)


RS = CountingState(0)


def noisy_loss(loc, scale):
    eps = RS.randn(3)
    return np.sum((loc + scale * eps) ** 2)


def _count(thunk):
    CountingState.calls = 0
    thunk()
    return CountingState.calls


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vjp", "jvp", "hessian", "grad_of_grad"])
def test_sampler_called_as_often_as_the_plain_function(transform):
    loc, scale = np.array([0.1, -0.2, 0.3]), np.array([1.0, 0.5, 2.0])
    run = {
        "grad": lambda: s2s.grad(noisy_loss, argnums=(0, 1))(loc, scale),
        "value_and_grad": lambda: s2s.value_and_grad(noisy_loss)(loc, scale),
        "vjp": lambda: s2s.vjp(noisy_loss, loc, scale)[1](1.0),
        "jvp": lambda: s2s.jvp(noisy_loss, (loc, scale), (loc, scale)),
        "hessian": lambda: s2s.hessian(noisy_loss)(loc, scale),
        "grad_of_grad": lambda: s2s.grad(lambda a: np.sum(s2s.grad(noisy_loss)(a, scale)))(loc),
    }[transform]
    run()  # compile once
    n = _count(run)
    # hessian is jacfwd of jacrev, one jvp batched over the basis (here one along ones: the
    # gradient is elementwise): one draw, as the plain function
    assert n == 1


def test_seeded_stream_gives_the_plain_functions_numbers():
    loc, scale = np.array([0.1, -0.2, 0.3]), np.array([1.0, 0.5, 2.0])
    RS.seed(5)
    want = [noisy_loss(loc, scale) for _ in range(3)]
    RS.seed(5)
    got = [s2s.value_and_grad(noisy_loss)(loc, scale)[0] for _ in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    RS.seed(5)
    eps = RS.randn(3)
    RS.seed(5)
    np.testing.assert_allclose(s2s.grad(noisy_loss, argnums=1)(loc, scale), 2 * (loc + scale * eps) * eps)


def sample_with_active_parameters(loc):
    return np.sum(np.random.RandomState(0).normal(loc, 1.0))


def test_sampler_with_differentiated_parameters_is_reported():
    with pytest.raises(S2SError, match="ext.s2s_sample") as e:
        s2s.grad(sample_with_active_parameters)(np.zeros(3))
    assert "sample_with_active_parameters" in str(e.value) or "test_idioms.py" in str(e.value)


# ---------------------------------------------------------------- specializations and cache keys

def test_partial_with_other_data_is_another_function():
    w = np.array([0.3, -0.2, 0.5])
    d2 = np.ones((4, 3))
    g1 = s2s.grad(functools.partial(data_loss, data=np.zeros((4, 3)) + 0.5))(w)
    g2 = s2s.grad(functools.partial(data_loss, data=d2))(w)
    h = 1e-6
    for g, d in ((g1, np.zeros((4, 3)) + 0.5), (g2, d2)):
        fd = [(data_loss(w + h * e, d) - data_loss(w - h * e, d)) / (2 * h) for e in np.eye(3)]
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_method_sees_changed_hyperparameters():
    m = Model(0.1, 2)
    p, x = np.array([0.2, 0.4, -0.1]), np.array([0.5, -1.0, 2.0])
    g1 = s2s.grad(m.loss)(p, x)
    m.l2 = 3.0
    g2 = s2s.grad(m.loss)(p, x)
    np.testing.assert_allclose(g2 - g1, 2 * (3.0 - 0.1) * p, rtol=1e-10)


def test_function_default_overridden_at_top_level_is_reported():
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(s2s.grad(mlp)(x, 1.0), 1 - np.tanh(x) ** 2)
    with pytest.raises(S2SError, match="partial"):
        s2s.grad(mlp)(x, 1.0, np.sin)
    with pytest.raises(S2SError, match="partial"):
        s2s.jit(mlp)(x, 1.0, np.sin)
    np.testing.assert_allclose(s2s.grad(functools.partial(mlp, nonlinearity=np.sin))(x, 1.0), np.cos(x))


# ---------------------------------------------------------------- documented errors

def star_of_unknown_length(x, xs):
    return np.sum(np.add(*xs) * x)


def star_params(*args, axis=0):
    return np.sum(args[0], axis=axis)


def function_list_read_as_value(x):
    fs = [np.sin, np.cos]
    return np.sum(fs[len(x) % 2](x))


@pytest.mark.parametrize("fn, args, match", [
    (star_of_unknown_length, (np.ones(2), (np.ones(2), np.ones(2))), r"how many values `\*xs`"),
    (star_params, (np.ones(2),), r"keyword-only"),
    (function_list_read_as_value, (np.ones(2),), r"(?s)picks a function by an index.*s2s.lax.switch"),
])
def test_documented_errors_name_the_line(fn, args, match):
    with pytest.raises(S2SError, match=match) as e:
        s2s.grad(fn)(*args)
    assert "test_idioms.py" in str(e.value)


def test_tolist_of_a_differentiated_value_is_its_elements():
    def f(x):
        return sum(x.tolist()) * x.tolist()[1]
    x = np.array([0.5, 2.0, -1.0])
    np.testing.assert_allclose(s2s.grad(f)(x), [2.0, 1.5 + 2.0, 2.0], rtol=1e-12)


def test_tolist_of_inactive_value_is_fine():
    def f(x, y):
        return np.sum(x) * len(y.tolist())
    x = np.ones(3)
    np.testing.assert_allclose(s2s.grad(f)(x, np.zeros(4)), 4 * np.ones(3))



def test_hessian_of_loss_seeded_inside_is_consistent():
    """A RandomState made inside the function gives every column of jacfwd the same draws."""
    from corpus_idioms import sampling_random_state as f
    loc, scale = np.array([0.1, -0.2, 0.3]), np.array([1.0, 0.5, 2.0])
    eps = np.random.RandomState(0).randn(5, 3)
    np.testing.assert_allclose(s2s.hessian(f)(loc, scale), np.diag(2 * np.ones(3)), atol=1e-12)
    np.testing.assert_allclose(s2s.hessian(f, argnums=1)(loc, scale), np.diag(2 * np.mean(eps ** 2, axis=0)),
                               rtol=1e-12)


HYPER = Model(0.1, 2)


def uses_global_model(p):
    return HYPER.loss(p, 0.5)


def test_method_called_inside_sees_changed_hyperparameters():
    p = np.array([0.2, 0.4, -0.1])
    HYPER.l2 = 0.1
    g1 = s2s.grad(uses_global_model)(p)
    HYPER.l2 = 2.0
    g2 = s2s.grad(uses_global_model)(p)
    HYPER.l2 = 0.1
    np.testing.assert_allclose(g2 - g1, 2 * (2.0 - 0.1) * p, rtol=1e-10)


def calls_its_parameter(x, f):
    return np.sum(f(x))


def test_calling_a_function_parameter_says_what_to_write():
    with pytest.raises(S2SError, match="functools.partial") as e:
        s2s.grad(calls_its_parameter)(np.ones(2), np.sin)
    assert "test_idioms.py" in str(e.value)
    g = s2s.grad(functools.partial(calls_its_parameter, f=np.sin))(np.array([0.1, 0.2]))
    np.testing.assert_allclose(g, np.cos([0.1, 0.2]))


def cube_weighted(w, *args):
    return np.sum(w ** 3 * sum(args))


@pytest.mark.parametrize("transform", ["grad", "jit_grad", "hessian", "jacfwd", "jacrev"])
def test_star_args_function_compiles_once_per_arity(transform):
    """Hand-derived: d/dw = 3 w^2 sum(args); d2/dw2 = diag(6 w sum(args))."""
    w = np.array([0.5, -1.5])
    a, b = np.array([1.0, 2.0]), np.array([-0.5, 3.0])
    t = {"grad": s2s.grad, "jit_grad": lambda f: s2s.jit(s2s.grad(f)), "hessian": s2s.hessian,
         "jacfwd": s2s.jacfwd, "jacrev": s2s.jacrev}[transform](cube_weighted)
    for extra in ((a,), (a, b), (a,), (a, b, a)):
        s = sum(extra)
        want = np.diag(6 * w * s) if transform == "hessian" else 3 * w ** 2 * s
        np.testing.assert_allclose(t(w, *extra), want, rtol=1e-12)


def two_draws(x):
    a = RS.randn(3)
    b = RS.randn(3)
    return np.sum(x * a + x * b * b)


@pytest.mark.parametrize("transform", ["jit", "value_and_grad", "grad"])
def test_two_identical_draws_stay_two_draws(transform):
    x = np.array([0.5, -1.0, 2.0])
    RS.seed(11)
    a, b = RS.randn(3), RS.randn(3)
    RS.seed(11)
    if transform == "jit":
        np.testing.assert_allclose(s2s.jit(two_draws)(x), np.sum(x * a + x * b * b), rtol=1e-14)
    elif transform == "grad":
        np.testing.assert_allclose(s2s.grad(two_draws)(x), a + b * b, rtol=1e-14)
    else:
        value, g = s2s.value_and_grad(two_draws)(x)
        np.testing.assert_allclose((value, *g), (np.sum(x * a + x * b * b), *(a + b * b)), rtol=1e-14)


def passes_a_closure(x):
    def inner(z):
        return z * x
    return np.sum(np.cos(x) * inner(x)) + np.sum(apply_fn(inner, x))


def apply_fn(f, z):
    return f(z)


def test_passing_a_closure_over_locals_passes_the_locals_along():
    x = np.array([0.3, -1.2])
    want = -np.sin(x) * x * x + 2 * x * np.cos(x) + 2 * x  # d/dx of sum(cos(x) x^2) + sum(x^2)
    np.testing.assert_allclose(s2s.grad(passes_a_closure)(x), want, rtol=1e-13)
