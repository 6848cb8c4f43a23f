"""Transforms called inside transformed functions compose as in JAX (issue 27, family 5):
s2s.jvp and s2s.vjp inside a function that grad/jvp/vjp/jit/vmap transform (Tangent's
reverse-over-forward Hessian-vector product, a VJP of a VJP as autograd's check_grads at order 2
builds), vmap/grad/jit of functools.partial with bound local values, and s2s.random samplers.
References: central finite differences (check_grads), hand-derived Hessians, Python loops and
the plain function."""
import functools

import numpy as np
import pytest

import s2s
from s2s import random
from s2s.test_util import check_grads


def energy(x):
    return np.sum(np.sin(x) ** 2) + x[0] * x[1] * x[2]


def energy_hessian(x):
    """Hand-derived: d2/dx2 sin^2 = 2 cos 2x on the diagonal; prod's second derivatives off it."""
    n = len(x)
    h = np.diag(2 * np.cos(2 * x))
    for i in range(n):
        for j in range(n):
            if i != j:
                h[i, j] += np.prod([x[k] for k in range(n) if k not in (i, j)])
    return h


def rof_hvp(x, v):
    """Tangent's reverse-over-forward: the gradient of <grad f, v> is H v."""
    return s2s.jvp(energy, (x,), (v,))[1]


def fof(x, v):
    return s2s.jvp(s2s.grad(energy), (x,), (v,))[1]


def jvp_of_local_closure(x, v, w):
    s = np.tanh(w)
    return np.sum(s2s.jvp(lambda z: np.sin(z * s) * s, (x,), (v,))[1] ** 2)


def jvp_two_args(x, y, v):
    out, tan = s2s.jvp(lambda a, b: np.sum(a * b * a), (x, y), (v, v))
    return out * tan


def pullback_norm(x, u):
    y, pb = s2s.vjp(lambda z: np.sin(z) * z, x)
    return np.sum(pb(u)[0] ** 2) + np.sum(y)


def vjp_of(x, u):
    """The VJP of energy along u, as autograd's check_grads builds it: a function of x."""
    y, pb = s2s.vjp(energy, x)
    return pb(u)[0]


def vjp_two(x, y, u):
    out, pb = s2s.vjp(lambda a, b: np.sin(a) * b, x, y)
    ga, gb = pb(u)
    return np.sum(ga * gb) + np.sum(out)


def scaled(x, s):
    return np.sin(x) * s


def vmap_partial(xs, s):
    return np.sum(s2s.vmap(functools.partial(scaled, s=s))(xs) ** 2)


def vmap_partial_positional(xs, w):
    return np.sum(s2s.vmap(functools.partial(np.dot, w))(xs))


def vmap_partial_expr(xs, s):
    return np.sum(s2s.vmap(functools.partial(scaled, s=np.tanh(s) * 2.0))(xs))


def grad_partial(x, s):
    return np.sum(s2s.grad(functools.partial(energy_scaled, s=s))(x))


def energy_scaled(x, s):
    return np.sum(np.sin(x * s))


def sampled(x):
    k1, k2 = random.split(random.PRNGKey(1))
    return np.sum(x * random.normal(k1, (3,)) + x ** 2 * random.uniform(k2, (3,)))


def uses_tree(x):
    return s2s.base.tree.tree_vdot((x, x), (x, x))


def uses_tree_leaves(x):  # tree_flatten, tree_leaves, tree_structure, tree_unflatten, tree_map run inside
    return np.sum(np.array(s2s.base.tree.tree_leaves((x, x))))


def vjp_with_aux(x):
    y, pb, aux = s2s.vjp(lambda z: (np.sum(z), z), x, has_aux=True)
    return y


RNG = np.random.default_rng(5)
X, V, U = RNG.standard_normal(3), RNG.standard_normal(3), RNG.standard_normal(3)


def test_reverse_over_forward_hvp_hand_derived():
    h = energy_hessian(X)
    np.testing.assert_allclose(rof_hvp(X, V), gradient_of_energy(X) @ V, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(rof_hvp)(X, V), gradient_of_energy(X) @ V, rtol=1e-12)
    np.testing.assert_allclose(fof(X, V), h @ V, rtol=1e-12)
    # grad of <grad f, v> with respect to x is H v: Tangent's reverse-over-forward
    np.testing.assert_allclose(s2s.grad(rof_hvp)(X, V), h @ V, rtol=1e-10)
    np.testing.assert_allclose(s2s.grad(rof_hvp, 1)(X, V), s2s.grad(energy)(X), rtol=1e-12)


@pytest.mark.parametrize("f, args", [
    (rof_hvp, (X, V)), (fof, (X, V)), (jvp_of_local_closure, (X, V, U)), (jvp_two_args, (X, U, V)),
    (pullback_norm, (X, U)), (vjp_of, (X, 1.3)), (vjp_two, (X, U, V)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_transform_inside_matches_finite_differences(f, args):
    np.testing.assert_allclose(s2s.jit(f)(*args), f(*args), rtol=1e-12)
    check_grads(f, args, order=2, modes=("rev", "fwd"))


def gradient_of_energy(x):
    """Hand-derived: d/dx_i sin^2 x_i = sin 2x_i, and prod's partial derivatives."""
    return np.sin(2 * x) + np.array([np.prod(np.delete(x, i)) for i in range(len(x))])


def test_vjp_of_vjp_gives_the_hessian():
    # vjp_of(x, u) = u * grad energy(x) (a scalar output's cotangent u); its VJP along w:
    # d/dx <w, u g(x)> = u H w and d/du <w, u g(x)> = <w, g(x)>
    u = 1.7
    np.testing.assert_allclose(vjp_of(X, u), u * gradient_of_energy(X), rtol=1e-12)
    _, pb = s2s.vjp(vjp_of, X, u)
    gx, gu = pb(V)
    np.testing.assert_allclose(gx, u * energy_hessian(X) @ V, rtol=1e-10)
    np.testing.assert_allclose(gu, np.dot(V, gradient_of_energy(X)), rtol=1e-10)


@pytest.mark.parametrize("f", [vmap_partial, vmap_partial_expr])
def test_vmap_of_partial_with_local_values(f):
    xs = RNG.standard_normal((4, 3))
    s = 0.8
    if f is vmap_partial:
        want = sum(np.sum(scaled(x, s) ** 2) for x in xs)
    else:
        want = sum(np.sum(scaled(x, np.tanh(s) * 2.0)) for x in xs)
    np.testing.assert_allclose(f(xs, s), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(f)(xs, s), want, rtol=1e-12)
    check_grads(f, (xs, s), order=2, modes=("rev", "fwd"))


def test_vmap_of_partial_positional():
    xs, w = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    want = sum(np.dot(w, x) for x in xs)
    np.testing.assert_allclose(vmap_partial_positional(xs, w), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(vmap_partial_positional, 1)(xs, w), xs.sum(0), rtol=1e-12)
    check_grads(vmap_partial_positional, (xs, w), order=2, modes=("rev", "fwd"))


def test_grad_of_partial_inside():
    x, s = RNG.standard_normal(3), 0.7
    np.testing.assert_allclose(grad_partial(x, s), np.sum(np.cos(x * s) * s), rtol=1e-12)
    check_grads(grad_partial, (x, s), order=2, modes=("rev", "fwd"))


def test_random_samplers_inside_transforms():
    x = RNG.standard_normal(3)
    k1, k2 = random.split(random.PRNGKey(1))
    a, b = random.normal(k1, (3,)), random.uniform(k2, (3,))
    np.testing.assert_allclose(sampled(x), np.sum(x * a + x ** 2 * b), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(sampled)(x), sampled(x), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(sampled)(x), a + 2 * x * b, rtol=1e-12)
    xs = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(s2s.vmap(sampled)(xs), [sampled(r) for r in xs], rtol=1e-12)
    check_grads(sampled, (x,), order=2, modes=("rev", "fwd"))


def test_tree_function_inside_is_an_error_at_the_users_line():
    with pytest.raises(s2s.S2SError, match=r"test_sound_nested_transforms.py:\d+") as err:
        s2s.grad(uses_tree)(X)
    assert "tree_vdot" in str(err.value)
    np.testing.assert_allclose(s2s.grad(uses_tree_leaves)(X), 2.0 * np.ones_like(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(s2s.base.tree.tree_map(np.sin, (x, x))[0]))(X), np.cos(X),
                               rtol=1e-12)


def test_vjp_has_aux_inside_is_an_error():
    with pytest.raises(s2s.S2SError, match="has_aux"):
        s2s.grad(vjp_with_aux)(X)
