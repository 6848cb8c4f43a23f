"""Higher-order and composed transforms, forward mode, Jacobian shapes, custom rules, check_grads.

Every test checks s2s against an independent reference: a hand-derived formula, central finite
differences computed here in float64, or a plain Python loop.
"""

import functools

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

# --------------------------------------------------------------------------- helpers


def fd_grad(f, x, eps=1e-6):
    """Central finite-difference gradient of scalar `f` at float64 array `x`."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def fd_jacobian(f, x, eps=1e-6):
    """Central finite-difference Jacobian with JAX's layout: out.shape + in.shape."""
    x = np.asarray(x, dtype=np.float64)
    out_shape = np.shape(f(x))
    jac = np.zeros(out_shape + x.shape)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        col = (np.asarray(f(x + e), dtype=np.float64) - np.asarray(f(x - e), dtype=np.float64)) / (2 * eps)
        idx = np.unravel_index(i, x.shape)
        jac[(Ellipsis,) + idx] = col
    return jac


def fd_scalar(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# --------------------------------------------------------------------------- 1. grad four times


def poly(x):
    return x**3 + 2 * x**2 - 3 * x + 1


def test_grad_applied_four_times():
    d1 = s2s.grad(poly)
    d2 = s2s.grad(d1)
    d3 = s2s.grad(d2)
    d4 = s2s.grad(d3)
    for x, want in ((0.0, [-3.0, 4.0, 6.0, 0.0]), (1.0, [4.0, 10.0, 6.0, 0.0])):
        got = [float(d(x)) for d in (d1, d2, d3, d4)]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the hand formulas f' = 3x^2 + 4x - 3, f'' = 6x + 4, f''' = 6, f'''' = 0 elsewhere
    for x in (-0.7, 2.5):
        got = [float(d(x)) for d in (d1, d2, d3, d4)]
        np.testing.assert_allclose(got, [3 * x**2 + 4 * x - 3, 6 * x + 4, 6.0, 0.0], rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- 2. Hessians


def dot_self(x):
    return np.dot(x, x)


def sum_tanh_cubed(x):
    return np.sum(np.tanh(x) ** 3)


def hand_hessian_tanh_cubed(x):
    t = np.tanh(x)
    d = 1 - t * t
    return np.diag(6 * t * d * d - 6 * t**3 * d)


def test_hessian_of_dot_is_twice_identity():
    x = np.array([0.3, -1.2, 2.0, 0.5])
    h = s2s.hessian(dot_self)(x)
    assert h.shape == (4, 4)
    np.testing.assert_allclose(h, 2 * np.eye(4), rtol=1e-12, atol=1e-12)


def test_hessian_of_sum_tanh_cubed_matches_hand_formula():
    x = np.array([0.5, -1.0, 2.0])
    want = hand_hessian_tanh_cubed(x)
    h = s2s.hessian(sum_tanh_cubed)(x)
    assert h.shape == (3, 3)
    np.testing.assert_allclose(h, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "compose",
    [
        lambda f: s2s.jacfwd(s2s.jacrev(f)),
        lambda f: s2s.jacrev(s2s.jacrev(f)),
        lambda f: s2s.jacfwd(s2s.jacfwd(f)),
        lambda f: s2s.jacrev(s2s.jacfwd(f)),
        lambda f: s2s.jacfwd(s2s.grad(f)),
    ],
    ids=["jacfwd_jacrev", "jacrev_jacrev", "jacfwd_jacfwd", "jacrev_jacfwd", "jacfwd_grad"],
)
def test_hessian_compositions_agree(compose):
    x = np.array([0.5, -1.0, 2.0])
    want = hand_hessian_tanh_cubed(x)
    h = compose(sum_tanh_cubed)(x)
    assert h.shape == (3, 3)
    np.testing.assert_allclose(h, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, s2s.hessian(sum_tanh_cubed)(x), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- 3. Jacobian shapes

A_2x4x3 = np.arange(24.0).reshape(8, 3) / 10.0 - 1.0
C3 = np.array([1.0, -2.0, 0.5])


def to_2x4(x):
    return np.reshape(np.tanh(A_2x4x3 @ x), (2, 4)) * x[0]


def scalar_in_vector_out(x):
    return np.sin(x * C3) + x * x


def two_args(x, y):
    return np.sin(x) * np.sum(y * y) + x[0] * y[1]


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_shape_vector_to_matrix(jac):
    x = np.array([0.3, -0.4, 0.8])
    assert to_2x4(x).shape == (2, 4)
    j = jac(to_2x4)(x)
    assert j.shape == (2, 4, 3)
    np.testing.assert_allclose(j, fd_jacobian(to_2x4, x), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_of_scalar_input_has_output_shape(jac):
    x = 0.7
    j = jac(scalar_in_vector_out)(x)
    assert np.shape(j) == (3,)
    np.testing.assert_allclose(j, C3 * np.cos(x * C3) + 2 * x, rtol=1e-12)
    np.testing.assert_allclose(j, fd_scalar(scalar_in_vector_out, x), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_argnums_tuple(jac):
    x = np.array([0.3, -0.4, 0.8])
    y = np.array([1.5, -0.5])
    jx, jy = jac(two_args, argnums=(0, 1))(x, y)
    assert jx.shape == (3, 3)
    assert jy.shape == (3, 2)
    np.testing.assert_allclose(jx, fd_jacobian(lambda a: two_args(a, y), x), rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(jy, fd_jacobian(lambda b: two_args(x, b), y), rtol=1e-7, atol=1e-8)
    # hand: d/dx = diag(cos x) |y|^2 + e0 y1, d/dy = outer(sin x, 2y) + e0 e1
    hx = np.diag(np.cos(x)) * np.sum(y * y)
    hx[:, 0] += y[1]
    hy = np.outer(np.sin(x), 2 * y)
    hy[:, 1] += x[0]
    np.testing.assert_allclose(jx, hx, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jy, hy, rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- 4. jvp conventions


def sin_times(x, y):
    return np.sin(x) * y


def affine_loss(params, x):
    w, b = params
    return np.sum(np.tanh(x @ w + b) ** 2)


def test_jvp_returns_output_and_tangent():
    x, y = np.array([0.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    dx, dy = np.array([1.0, -1.0, 0.5]), np.array([0.2, 0.0, -0.3])
    result = s2s.jvp(sin_times, (x, y), (dx, dy))
    assert isinstance(result, tuple) and len(result) == 2
    out, tangent = result
    np.testing.assert_allclose(out, np.sin(x) * y, rtol=1e-15)
    np.testing.assert_allclose(tangent, np.cos(x) * dx * y + np.sin(x) * dy, rtol=1e-12, atol=1e-15)


def test_jvp_python_float_primals_and_tangents():
    out, tangent = s2s.jvp(sin_times, (0.5, 2.0), (1.0, 0.25))
    np.testing.assert_allclose(out, np.sin(0.5) * 2.0, rtol=1e-15)
    np.testing.assert_allclose(tangent, np.cos(0.5) * 2.0 + np.sin(0.5) * 0.25, rtol=1e-12)
    assert np.ndim(tangent) == 0


def test_jvp_pytree_primal():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 3))
    w, b = rng.normal(size=3), 0.3
    dw, db = rng.normal(size=3), -0.7
    out, tangent = s2s.jvp(affine_loss, ((w, b), x), ((dw, db), np.zeros_like(x)))
    np.testing.assert_allclose(out, affine_loss((w, b), x), rtol=1e-14)
    eps = 1e-6
    fd = (affine_loss((w + eps * dw, b + eps * db), x) - affine_loss((w - eps * dw, b - eps * db), x)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, rtol=1e-7)
    # and by hand: sum(2 t (1 - t^2) (x @ dw + db))
    t = np.tanh(x @ w + b)
    np.testing.assert_allclose(tangent, np.sum(2 * t * (1 - t * t) * (x @ dw + db)), rtol=1e-12)


def test_jvp_mismatched_tree_structure_raises_value_error():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 3))
    w, b = rng.normal(size=3), 0.3
    with pytest.raises(s2s.S2SError) as e:
        s2s.jvp(affine_loss, ((w, b), x), ((w,), np.zeros_like(x)))
    assert isinstance(e.value, ValueError)
    with pytest.raises(ValueError):
        s2s.jvp(affine_loss, ((w, b), x), ([w, b], np.zeros_like(x)))


def test_jvp_tangents_not_a_tuple_raise_type_error():
    x = np.array([0.0, 1.0])
    with pytest.raises(TypeError):
        s2s.jvp(sin_times, (x, x), x)
    with pytest.raises(TypeError):
        s2s.jvp(sin_times, (x, x), 1.0)


# --------------------------------------------------------------------------- 5. Hessian-vector products

A_4x3 = np.array([[1.0, 0.5, -0.3], [0.2, -1.0, 0.7], [0.0, 0.4, 1.1], [-0.6, 0.3, 0.2]])


def sum_tanh_sq(x):
    return np.sum(np.tanh(A_4x3 @ x) ** 2)


def test_hvp_is_jvp_of_grad():
    x = np.array([0.3, -0.8, 0.5])
    t = np.tanh(A_4x3 @ x)
    d = 1 - t * t
    hand_h = A_4x3.T @ np.diag(2 * d * d - 4 * t * t * d) @ A_4x3
    h = s2s.hessian(sum_tanh_sq)(x)
    np.testing.assert_allclose(h, hand_h, rtol=1e-12, atol=1e-14)
    for v in (np.array([1.0, 0.0, 0.0]), np.array([0.3, -2.0, 1.5])):
        hv = s2s.jvp(s2s.grad(sum_tanh_sq), (x,), (v,))[1]
        np.testing.assert_allclose(hv, h @ v, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(hv, hand_h @ v, rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- 6. jit


def sum_logistic(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def loop_fn(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + np.sum(np.sin(x * i))
        if acc > 1.0:
            acc = acc * 0.5
    k = 0
    while k < 3:
        x = x * 0.9 + 0.1
        k = k + 1
    return acc + np.sum(x * x)


def test_grad_jit_grad_jit_grad_sum_logistic():
    got = s2s.grad(s2s.jit(s2s.grad(s2s.jit(s2s.grad(sum_logistic)))))(1.0)
    np.testing.assert_allclose(got, -0.03532558, rtol=1e-6)
    s = 1.0 / (1.0 + np.exp(-1.0))
    np.testing.assert_allclose(got, s * (1 - s) * (1 - 6 * s + 6 * s**2), rtol=1e-12)


def test_jit_of_function_with_loop_equals_function():
    x = np.array([0.3, -1.2, 2.0, 0.5])
    fast = s2s.jit(loop_fn)
    for n in (0, 1, 5):
        assert fast(x, n) == loop_fn(x, n)


# --------------------------------------------------------------------------- 7. MAML

RNG = np.random.default_rng(7)
X1 = RNG.normal(size=(12, 4))
Y1 = RNG.normal(size=12)
X2 = RNG.normal(size=(10, 4))
Y2 = RNG.normal(size=10)


def mse_loss(params, x, y):
    return np.mean((np.tanh(x @ params) - y) ** 2)


def inner(params, x, y):
    return params - 0.1 * s2s.grad(mse_loss)(params, x, y)


def maml_loss(params, x, y):
    return mse_loss(inner(params, x, y), X2, Y2)


def hand_mse_grad(params, x, y):
    t = np.tanh(x @ params)
    return x.T @ (2 * (t - y) / y.size * (1 - t * t))


def hand_maml_loss(params, x, y):
    return mse_loss(params - 0.1 * hand_mse_grad(params, x, y), X2, Y2)


def test_maml_meta_gradient_matches_finite_differences():
    params = np.array([0.4, -0.3, 0.2, 0.1])
    np.testing.assert_allclose(maml_loss(params, X1, Y1), hand_maml_loss(params, X1, Y1), rtol=1e-13)
    meta = s2s.grad(maml_loss)(params, X1, Y1)
    assert meta.shape == params.shape
    fd_hand = fd_grad(lambda p: hand_maml_loss(p, X1, Y1), params)
    fd_self = fd_grad(lambda p: maml_loss(p, X1, Y1), params)
    np.testing.assert_allclose(meta, fd_hand, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(meta, fd_self, rtol=1e-6, atol=1e-9)
    # the meta-gradient is not just the outer gradient at the adapted parameters
    outer_only = hand_mse_grad(inner(params, X1, Y1), X2, Y2)
    assert np.max(np.abs(meta - outer_only)) > 1e-4


# --------------------------------------------------------------------------- 8. custom_vjp

CALLS = {"bwd": 0, "scaled_bwd": 0, "nondiff": []}


def linear(x, w, b):
    return np.dot(x, w) + b


@s2s.custom_vjp
def custom_linear(x, w, b):
    return np.dot(x, w) + b


def custom_linear_fwd(x, w, b):
    return np.dot(x, w) + b, (x, w)


def custom_linear_bwd(res, g):
    CALLS["bwd"] += 1
    x, w = res
    return g @ w.T, x.T @ g, np.sum(g, axis=0)


custom_linear.defvjp(custom_linear_fwd, custom_linear_bwd)


@s2s.custom_vjp
def scaled_linear(x, w, b):
    return np.dot(x, w) + b


def scaled_linear_bwd(res, g):
    CALLS["scaled_bwd"] += 1
    x, w = res
    return 3.0 * (g @ w.T), 3.0 * (x.T @ g), -0.5 * np.sum(g, axis=0)


scaled_linear.defvjp(custom_linear_fwd, scaled_linear_bwd)


def plain_loss(params, x, y):
    w, b = params
    return np.mean((linear(x, w, b) - y) ** 2)


def custom_loss(params, x, y):
    w, b = params
    return np.mean((custom_linear(x, w, b) - y) ** 2)


def scaled_loss(params, x, y):
    w, b = params
    return np.mean((scaled_linear(x, w, b) - y) ** 2)


def custom_loss_x(x, w, b, y):
    return np.mean((custom_linear(x, w, b) - y) ** 2)


@functools.partial(s2s.custom_vjp, nondiff_argnums=(1,))
def scale_by(x, c):
    return c * x


def scale_by_fwd(x, c):
    return c * x, np.cos(x)


def scale_by_bwd(c, res, g):
    CALLS["nondiff"].append(c)
    # a deliberately unusual rule: c * g + cos(x) * g, so that the result shows it ran
    return (c * g + res * g,)


scale_by.defvjp(scale_by_fwd, scale_by_bwd)


def uses_scale_by(x, c):
    return np.sum(scale_by(x, c) ** 2)


def _linear_data(seed=3):
    rng = np.random.default_rng(seed)
    B, D1, D2 = 6, 4, 5
    return rng.normal(size=(B, D1)), rng.normal(size=(D1, D2)), rng.normal(size=D2), rng.normal(size=(B, D2))


def test_custom_vjp_linear_matches_plain_gradient():
    x, w, b, y = _linear_data()
    r = x @ w + b - y
    g = 2 * r / r.size
    plain = s2s.grad(plain_loss)((w, b), x, y)
    before = CALLS["bwd"]
    custom = s2s.grad(custom_loss)((w, b), x, y)
    assert CALLS["bwd"] == before + 1
    assert isinstance(custom, tuple) and len(custom) == 2
    for got in (plain, custom):
        np.testing.assert_allclose(got[0], x.T @ g, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got[1], g.sum(axis=0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(custom_loss((w, b), x, y), plain_loss((w, b), x, y), rtol=1e-15)
    # the x cotangent of the rule, g @ w.T, also reaches the caller
    dx = s2s.grad(custom_loss_x)(x, w, b, y)
    np.testing.assert_allclose(dx, g @ w.T, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dx, fd_grad(lambda a: custom_loss_x(a, w, b, y), x), rtol=1e-6, atol=1e-9)


def test_custom_vjp_scaled_rule_is_what_runs():
    x, w, b, y = _linear_data()
    r = x @ w + b - y
    g = 2 * r / r.size
    before = CALLS["scaled_bwd"]
    dw, db = s2s.grad(scaled_loss)((w, b), x, y)
    assert CALLS["scaled_bwd"] == before + 1
    np.testing.assert_allclose(dw, 3.0 * (x.T @ g), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(db, -0.5 * g.sum(axis=0), rtol=1e-12, atol=1e-15)


def test_custom_vjp_nondiff_argnums():
    x = np.array([0.3, -1.0, 2.0])
    c = 2.5
    CALLS["nondiff"].clear()
    got = s2s.grad(uses_scale_by)(x, c)
    assert CALLS["nondiff"] == [c]  # bwd(nondiff_arg, res, g), called once
    g = 2 * c * x  # d sum(out^2) / d out
    np.testing.assert_allclose(got, c * g + np.cos(x) * g, rtol=1e-12)
    # the primal value is unaffected
    np.testing.assert_allclose(uses_scale_by(x, c), np.sum((c * x) ** 2), rtol=1e-15)


def test_jvp_through_custom_vjp_differentiates_the_function():
    x, w, b, y = _linear_data()
    rng = np.random.default_rng(11)
    dw, db = rng.normal(size=w.shape), rng.normal(size=b.shape)
    zx, zy = np.zeros_like(x), np.zeros_like(y)
    r = x @ w + b - y
    want = np.sum(2 * r / r.size * (x @ dw + db))
    for fn in (custom_loss, scaled_loss):  # the scaled bwd rule must not affect forward mode
        out, tangent = s2s.jvp(fn, ((w, b), x, y), ((dw, db), zx, zy))
        np.testing.assert_allclose(out, plain_loss((w, b), x, y), rtol=1e-15)
        np.testing.assert_allclose(tangent, want, rtol=1e-12)


# --------------------------------------------------------------------------- 9. custom_jvp


@s2s.custom_jvp
def doubled_sin(x):
    return np.sin(x)


@doubled_sin.defjvp
def doubled_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return np.sin(x), 2.0 * np.cos(x) * t


def calls_doubled_sin(x):
    return np.sum(doubled_sin(x) * 3.0)


def calls_doubled_sin_scalar(x):
    return doubled_sin(x) + x * x


def test_custom_jvp_rule_used_in_forward_mode():
    x = np.array([0.2, -1.0, 2.5])
    v = np.array([1.0, 0.5, -2.0])
    out, tangent = s2s.jvp(calls_doubled_sin, (x,), (v,))
    np.testing.assert_allclose(out, 3.0 * np.sum(np.sin(x)), rtol=1e-13)
    np.testing.assert_allclose(tangent, 3.0 * np.sum(2.0 * np.cos(x) * v), rtol=1e-12)
    out, tangent = s2s.jvp(calls_doubled_sin_scalar, (0.7,), (1.0,))
    np.testing.assert_allclose(tangent, 2.0 * np.cos(0.7) + 2 * 0.7, rtol=1e-12)


def test_custom_jvp_rule_transposed_in_reverse_mode():
    x = np.array([0.2, -1.0, 2.5])
    np.testing.assert_allclose(s2s.grad(calls_doubled_sin)(x), 3.0 * 2.0 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(calls_doubled_sin_scalar)(0.7), 2.0 * np.cos(0.7) + 2 * 0.7, rtol=1e-12)
    # the primal is the function's own value
    np.testing.assert_allclose(calls_doubled_sin(x), 3.0 * np.sum(np.sin(x)), rtol=1e-13)


# --------------------------------------------------------------------------- 10. defvjp / defjvp


def softplus_str(x):
    return np.log1p(np.exp(x))


def softplus_call(x):
    return np.log1p(np.exp(x))


def softplus_tripled(x):
    return np.log1p(np.exp(x))


s2s.defvjp(softplus_str, x="g / (1.0 + xp.exp(-x))")
s2s.defjvp(softplus_str, x="dx / (1.0 + xp.exp(-x))")
s2s.defvjp(softplus_call, x=lambda g, ans, x: g * (1.0 - np.exp(-ans)))  # sigmoid(x) = 1 - exp(-softplus(x))
s2s.defjvp(softplus_call, x=lambda dx, ans, x: dx / (1.0 + np.exp(-x)))
s2s.defvjp(softplus_tripled, x="3.0 * g / (1.0 + xp.exp(-x))")  # deliberately wrong: shows the rule runs
s2s.defjvp(softplus_tripled, x="3.0 * dx / (1.0 + xp.exp(-x))")


def uses_softplus_str(x, w):
    return np.sum(softplus_str(x * w) ** 2)


def uses_softplus_call(x, w):
    return np.sum(softplus_call(x * w) ** 2)


def uses_softplus_tripled(x):
    return np.sum(softplus_tripled(x))


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.parametrize("fn", [uses_softplus_str, uses_softplus_call], ids=["string_rules", "callable_rules"])
def test_defvjp_defjvp_rules(fn):
    x = np.array([0.3, -1.2, 2.0])
    w = np.array([1.5, 0.5, -0.7])
    z = x * w
    sp = np.log1p(np.exp(z))
    np.testing.assert_allclose(fn(x, w), np.sum(sp**2), rtol=1e-15)
    # reverse mode
    gx, gw = s2s.grad(fn, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx, 2 * sp * _sigmoid(z) * w, rtol=1e-12)
    np.testing.assert_allclose(gw, 2 * sp * _sigmoid(z) * x, rtol=1e-12)
    np.testing.assert_allclose(gx, fd_grad(lambda a: fn(a, w), x), rtol=1e-7)
    # forward mode
    dx, dw = np.array([1.0, -0.5, 0.25]), np.array([0.0, 2.0, 1.0])
    out, tangent = s2s.jvp(fn, (x, w), (dx, dw))
    np.testing.assert_allclose(out, np.sum(sp**2), rtol=1e-15)
    np.testing.assert_allclose(tangent, np.sum(2 * sp * _sigmoid(z) * (dx * w + x * dw)), rtol=1e-12)


def test_defvjp_defjvp_registered_rule_is_what_runs():
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(s2s.grad(uses_softplus_tripled)(x), 3.0 * _sigmoid(x), rtol=1e-12)
    v = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(s2s.jvp(uses_softplus_tripled, (x,), (v,))[1], 3.0 * np.sum(_sigmoid(x) * v),
                               rtol=1e-12)


def test_defvjp_string_rule_differentiates_again():
    # a second derivative differentiates the rule expression: d/dz sigmoid(z) = s (1 - s)
    x = np.array([0.3, -1.2, 2.0])
    w = np.ones(3)
    z = x
    sp, s = np.log1p(np.exp(z)), _sigmoid(z)
    want = np.diag(2 * s * s + 2 * sp * s * (1 - s))
    np.testing.assert_allclose(s2s.hessian(uses_softplus_str)(x, w), want, rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- 11. check_grads


def cg_loop_branch(x, w):
    acc = 0.0
    for i in range(3):
        h = np.tanh(x * w + i)
        if np.sum(h) > 0.0:
            acc = acc + np.sum(h * h)
        else:
            acc = acc - np.sum(np.sin(h))
    return acc


def cg_while(x):
    y = x
    k = 0
    while k < 4:
        y = 0.5 * (y + x / y)
        k = k + 1
    return y


def cg_pytree_loop(params, x):
    w, b = params
    h = x
    for _ in range(2):
        h = np.tanh(h @ w + b)
    return np.sum(h**2) + params[1][0] * 0.5


def cg_scalar_branch(x):
    if x > 0.0:
        return x**3 - np.cos(x)
    return np.exp(x) * x


@s2s.custom_vjp
def wrong_cube(x):
    return x**3


def wrong_cube_fwd(x):
    return x**3, x


def wrong_cube_bwd(x, g):
    return (2.0 * x * x * g,)  # should be 3 x^2 g


wrong_cube.defvjp(wrong_cube_fwd, wrong_cube_bwd)


def calls_wrong_cube(x):
    return np.sum(wrong_cube(x) + x)


def test_check_grads_passes_on_loops_and_branches():
    rng = np.random.default_rng(5)
    x = np.array([0.3, -0.8, 1.1])
    w = np.array([0.5, 1.5, -0.4])
    check_grads(cg_loop_branch, (x, w), order=2, modes=("fwd", "rev"))
    check_grads(cg_while, (np.array([2.0, 0.7, 5.0]),), order=2, modes=("fwd", "rev"))
    params = (0.5 * rng.normal(size=(3, 3)), 0.1 * rng.normal(size=3))
    check_grads(cg_pytree_loop, (params, rng.normal(size=(4, 3))), order=2, modes=("fwd", "rev"))
    check_grads(cg_scalar_branch, (0.8,), order=2, modes=("fwd", "rev"))
    check_grads(cg_scalar_branch, (-0.6,), order=2, modes=("fwd", "rev"))


def _branch_d1(x):
    return 3 * x**2 + np.sin(x) if x > 0 else np.exp(x) * (x + 1)


def _branch_d2(x):
    return 6 * x + np.cos(x) if x > 0 else np.exp(x) * (x + 2)


def test_branch_function_derivatives_match_hand_formulas():
    # what check_grads accepted above, against hand derivatives of the scalar branch function
    for x in (0.8, -0.6):
        np.testing.assert_allclose(s2s.grad(cg_scalar_branch)(x), _branch_d1(x), rtol=1e-12)
        np.testing.assert_allclose(s2s.jvp(s2s.grad(cg_scalar_branch), (x,), (1.0,))[1], _branch_d2(x), rtol=1e-12)
        np.testing.assert_allclose(s2s.jacfwd(s2s.grad(cg_scalar_branch))(x), _branch_d2(x), rtol=1e-12)


@pytest.mark.parametrize("x", [0.8, -0.6])
def test_grad_of_grad_through_branch(x):
    # reverse over reverse through an if/else whose untaken branch has intermediates
    np.testing.assert_allclose(s2s.grad(s2s.grad(cg_scalar_branch))(x), _branch_d2(x), rtol=1e-12)


def test_check_grads_catches_wrong_custom_vjp_rule():
    x = np.array([0.3, -0.8, 1.1])
    # the wrong rule really is what reverse mode uses
    np.testing.assert_allclose(s2s.grad(calls_wrong_cube)(x), 2.0 * x * x + 1.0, rtol=1e-12)
    with pytest.raises(AssertionError):
        check_grads(calls_wrong_cube, (x,), order=1, modes=("rev",))
    with pytest.raises(AssertionError):
        check_grads(calls_wrong_cube, (x,), order=2, modes=("fwd", "rev"))
    # forward mode differentiates the function itself, so a fwd-only check passes
    check_grads(calls_wrong_cube, (x,), order=1, modes=("fwd",))


def tree_in_tree_out(p):
    w, b = p
    return {"a": np.tanh(w) * b, "s": np.sum(w ** 2)}


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobians_of_pytrees_have_jax_layout(jac):
    """out-tree of in-trees; each block shaped out_leaf.shape + in_leaf.shape (as JAX)."""
    w, b = np.array([0.1, -0.3, 0.5]), 2.0
    J = jac(tree_in_tree_out)((w, b))
    assert set(J) == {"a", "s"}
    np.testing.assert_allclose(J["a"][0], np.diag((1 - np.tanh(w) ** 2) * b), rtol=1e-12)
    np.testing.assert_allclose(J["a"][1], np.tanh(w), rtol=1e-12)
    np.testing.assert_allclose(J["s"][0], 2 * w, rtol=1e-12)
    assert np.shape(J["s"][1]) == () and J["s"][1] == 0.0


def cubic_times_scale(p):
    w, b = p
    return np.sum(w ** 3) * b


def test_hessian_of_a_pytree_argument():
    w, b = np.array([0.1, -0.3, 0.5]), 2.0
    H = s2s.hessian(cubic_times_scale)((w, b))
    np.testing.assert_allclose(H[0][0], np.diag(6 * w * b), rtol=1e-12)
    np.testing.assert_allclose(H[0][1], 3 * w ** 2, rtol=1e-12)
    np.testing.assert_allclose(H[1][0], 3 * w ** 2, rtol=1e-12)
    assert H[1][1] == 0.0


def tanh_with_aux(x):
    y = np.tanh(x)
    return y * 2.0, {"mean": np.mean(y)}


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_has_aux_returns_the_auxiliary_output(jac):
    x = np.array([0.2, -0.4, 1.0])
    J, aux = jac(tanh_with_aux, has_aux=True)(x)
    np.testing.assert_allclose(J, np.diag(2.0 * (1 - np.tanh(x) ** 2)), rtol=1e-12)
    assert aux == {"mean": pytest.approx(np.mean(np.tanh(x)))}


def branch_with_intermediate(x):
    if x > 0.0:
        y = x * x
    else:
        y = np.exp(x) * x  # np.exp(x) is a temporary only this branch assigns
    return y


@pytest.mark.parametrize("x", [-0.6, 0.8])
def test_second_derivative_through_a_branch_with_its_own_temporaries(x):
    want = 2.0 if x > 0 else np.exp(x) * (x + 2.0)
    assert s2s.grad(s2s.grad(branch_with_intermediate))(x) == pytest.approx(want, rel=1e-12)


def cube_sum(x):
    return np.sum(x ** 3)


def test_jacrev_of_jacrev():
    x = np.array([0.3, -0.5])
    np.testing.assert_allclose(s2s.jacrev(s2s.jacrev(cube_sum))(x), np.diag(6.0 * x))


def tanh_loss(w, b, x):
    return np.sum(np.tanh(x * w + b) ** 2)


def gradient_norm(w, b, x):
    gw, gb = s2s.grad(tanh_loss, argnums=(0, 1))(w, b, x)
    return gw * gw + gb * gb


def test_transform_with_tuple_argnums_inside_a_transformed_function():
    from s2s.test_util import check_grads

    check_grads(gradient_norm, (0.5, 0.1, np.array([1.0, 2.0])), order=1, modes=("rev", "fwd"))
