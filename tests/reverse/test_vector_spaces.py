"""User-defined vector spaces (s2s/base/vspace.py, autograd.extend.VSpace in s2s.compat.autograd):
gradients with respect to a polynomial object, whose cotangent is another polynomial (other
powers than the primal's), through calls of it whose class's `__call__` has derivative rules.
Checked against central differences along directions of the space (the space's inner product
with the gradient), hand-derived coefficients, and autograd itself where it is installed; what
s2s cannot do with such values is an S2SError."""
import numpy as np
import pytest

import s2s
from s2s.compat import autograd as ag
from s2s.compat.autograd.extend import Box, VSpace, defjvp, defvjp, primitive, vspace
from s2s.compat.autograd.util import func


class Poly:
    """sum_k c_k x**k, its coefficients a dict {power: c_k}."""

    def __init__(self, coefs=None):
        self.coefs = dict(coefs or {})

    @primitive
    def __call__(self, x):
        return sum((c * x ** k for k, c in self.coefs.items()), 0.0)

    def __add__(self, other):
        return vspace(self).add(self, other)

    def __mul__(self, a):
        return vspace(self).scalar_mul(self, a)


def deriv(p, x):
    return sum((k * c * x ** (k - 1) for k, c in p.coefs.items() if k), 0.0)


# evaluation at x is the inner product with the polynomial of powers x**k: that is its cotangent
defvjp(func(Poly.__call__), lambda ans, p, x: lambda g: Poly({k: g * x ** k for k in range(4)}),
       lambda ans, p, x: lambda g: g * deriv(p, x))
defjvp(func(Poly.__call__), lambda dp, ans, p, x: dp(x), lambda dx, ans, p, x: dx * deriv(p, x))


class PolySpace(VSpace):
    def __init__(self, value):
        self.cls = type(value)

    def zeros(self):
        return self.cls()

    def _add(self, f, g):
        out = dict(f.coefs)
        for k, c in g.coefs.items():
            out[k] = out.get(k, 0.0) + c
        return self.cls(out)

    def _scalar_mul(self, f, a):
        return self.cls({k: a * c for k, c in f.coefs.items()})

    def _inner_prod(self, f, g):
        return sum((c * g.coefs.get(k, 0.0) for k, c in f.coefs.items()), 0.0)


PolySpace.register(Poly)


class PolyBox(Box, Poly):  # as autograd's programs declare it: accepted, never used (s2s has no boxes)
    pass


PolyBox.register(Poly)

XS = [0.3, -1.2, 0.8, 2.0]
YS = [1.0, 0.5, -0.25, 3.0]
P = Poly({0: 0.5, 1: -1.0, 3: 0.25})
EPS = 1e-6


def squared_error(p, xs, ys):
    return sum((p(x) - y) ** 2 for x, y in zip(xs, ys))


def several_uses(p, x):
    a = p(x)
    b = np.sin(p(2.0 * x)) * a
    for k in range(3):
        if k != 1:
            b = b + p(x + k) ** 2
    return b


def two_spaces(p, q, x):
    return p(x) * q(x - 1.0) + q(x)


def inner(f, g):
    return vspace(f).inner_prod(f, g)


def directions(seed=0, n=4):
    rng = np.random.default_rng(seed)
    return [Poly({k: rng.normal() for k in rng.choice(4, size=rng.integers(1, 5), replace=False)}) for _ in range(n)]


def central(fun, p, v, *rest):
    """The derivative of `fun` at `p` along direction `v` of the space, by central differences."""
    return (fun(p + v * EPS, *rest) - fun(p + v * -EPS, *rest)) / (2 * EPS)


@pytest.mark.parametrize("fun, rest", [(squared_error, (XS, YS)), (several_uses, (0.7,))],
                         ids=["squared_error", "several_uses"])
def test_gradient_against_central_differences_along_directions_of_the_space(fun, rest):
    g = s2s.grad(fun)(P, *rest)
    assert type(g) is Poly
    for v in directions():
        np.testing.assert_allclose(inner(g, v), central(fun, P, v, *rest), rtol=1e-7, atol=1e-8)


def test_the_cotangent_is_the_sum_of_the_rules_cotangents_hand_derived():
    g = ag.grad(squared_error)(P, XS, YS)  # sum_i 2 (p(x_i) - y_i) x_i**k
    want = {k: sum(2 * (P(x) - y) * x ** k for x, y in zip(XS, YS)) for k in range(4)}
    assert type(g) is Poly and set(g.coefs) == set(want)  # powers 0..3, where P has 0, 1, 3
    np.testing.assert_allclose([g.coefs[k] for k in range(4)], [want[k] for k in range(4)], rtol=1e-12)


def test_two_space_arguments_and_an_array_argument():
    q = Poly({1: 2.0, 2: -0.5})
    gp, gq, gx = s2s.grad(two_spaces, argnums=(0, 1, 2))(P, q, 0.4)
    assert type(gp) is Poly and type(gq) is Poly
    for v in directions(1):
        np.testing.assert_allclose(inner(gp, v), central(two_spaces, P, v, q, 0.4), rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(inner(gq, v), central(lambda b, a, x: two_spaces(a, b, x), q, v, P, 0.4),
                                   rtol=1e-7, atol=1e-8)
    fd = (two_spaces(P, q, 0.4 + EPS) - two_spaces(P, q, 0.4 - EPS)) / (2 * EPS)
    np.testing.assert_allclose(gx, fd, rtol=1e-7)


def items_called(ps, x):
    return ps[0](x) * ps[1](x) + ps[0](2.0 * x)


def test_a_list_of_space_values_meets_item_by_item():
    ps = [P, Poly({2: 1.0})]
    g = s2s.grad(items_called)(ps, 0.5)
    assert type(g) is list and [type(e) for e in g] == [Poly, Poly]
    for i in range(2):
        def with_item(q, i=i):
            return items_called([q if j == i else p for j, p in enumerate(ps)], 0.5)
        for v in directions(5):
            np.testing.assert_allclose(inner(g[i], v), central(with_item, ps[i], v), rtol=1e-7, atol=1e-8)


def test_value_and_grad_and_a_vjp_used_twice():
    value, g = s2s.value_and_grad(squared_error)(P, XS, YS)
    np.testing.assert_allclose(value, squared_error(P, XS, YS), rtol=1e-14)
    out, pullback = s2s.vjp(squared_error, P, XS, YS)
    first = pullback(1.0)[0]
    second = pullback(1.0)[0]
    doubled = pullback(2.0)[0]
    for v in directions(2):
        np.testing.assert_allclose(inner(first, v), inner(g, v), rtol=1e-12)
        np.testing.assert_allclose(inner(second, v), inner(g, v), rtol=1e-12)  # the record is not consumed
        np.testing.assert_allclose(inner(doubled, v), 2 * inner(g, v), rtol=1e-12)
    assert P.coefs == {0: 0.5, 1: -1.0, 3: 0.25}  # the primal is untouched


def test_jvp_along_a_direction_of_the_space_uses_the_jvp_rule():
    for v in directions(3):
        out, tangent = s2s.jvp(several_uses, (P, 0.7), (v, 0.0))
        np.testing.assert_allclose(out, several_uses(P, 0.7), rtol=1e-14)
        np.testing.assert_allclose(tangent, central(several_uses, P, v, 0.7), rtol=1e-7, atol=1e-8)


FIXED = Poly({1: 2.0, 2: 1.0})


def through_a_global(x):
    return FIXED(x) * x  # a module-level object: its class's rules, not its body (which s2s cannot read)


def test_a_module_level_object_is_called_through_its_rules():
    fd = (through_a_global(0.5 + EPS) - through_a_global(0.5 - EPS)) / (2 * EPS)
    np.testing.assert_allclose(s2s.grad(through_a_global)(0.5), fd, rtol=1e-8)
    np.testing.assert_allclose(s2s.jvp(through_a_global, (0.5,), (1.0,))[1], fd, rtol=1e-8)


def test_the_core_registry_without_autograds_classes():
    class Coefs:  # a vector of coefficients c, evaluated as c . phi(x)
        def __init__(self, c):
            self.c = np.asarray(c, dtype=float)

        def __call__(self, x):
            return float(self.c @ np.array([1.0, x, x * x]))

    s2s.defvjp(Coefs.__call__, self=lambda g, ans, self, x: Coefs(g * np.array([1.0, x, x * x])),
               x="g * (self.c[1] + 2.0 * self.c[2] * x)")  # a rule expression, as for any primitive
    s2s.base.vspace.register_space(Coefs, zeros=lambda f: Coefs(np.zeros(3)), add=lambda a, b: Coefs(a.c + b.c),
                              scalar_mul=lambda f, a: Coefs(a * f.c))

    def loss(f, x):
        return f(x) ** 2 + 3.0 * f(x + 1.0)

    c = np.array([0.5, -1.0, 2.0])
    g = s2s.grad(loss)(Coefs(c), 0.3)
    fd = [(loss(Coefs(c + EPS * e), 0.3) - loss(Coefs(c - EPS * e), 0.3)) / (2 * EPS) for e in np.eye(3)]
    assert type(g) is Coefs
    np.testing.assert_allclose(g.c, fd, rtol=1e-7)
    gx = s2s.grad(loss, argnums=1)(Coefs(c), 0.3)
    np.testing.assert_allclose(gx, (loss(Coefs(c), 0.3 + EPS) - loss(Coefs(c), 0.3 - EPS)) / (2 * EPS), rtol=1e-7)


# ---------------------------------------------------------------- refused, never a wrong number


def scaled(p, x):
    return (p * 2.0)(x)  # arithmetic on the value: s2s does not follow Poly.__mul__


def attribute_read(p, x):
    return p(x) + p.coefs[0]


def apply_param(h, x):
    return h(x) * 2.0


def test_arithmetic_and_attributes_of_the_value_are_refused():
    with pytest.raises(s2s.S2SError, match="Poly"):
        s2s.grad(scaled)(P, 0.5)
    with pytest.raises(s2s.S2SError, match="coefs"):
        s2s.grad(attribute_read)(P, 0.5)


def test_transforms_without_a_meaning_for_the_value_are_refused():
    with pytest.raises(s2s.S2SError, match="vector-space value"):
        s2s.vmap(apply_param, in_axes=(None, 0))(P, np.array(XS))
    for transform in (s2s.jacrev, s2s.jacfwd, s2s.hessian):
        with pytest.raises(s2s.S2SError, match="vector-space value"):
            transform(squared_error)(P, XS, YS)
    with pytest.raises(s2s.S2SError, match="second derivative"):  # through the rule of Poly.__call__
        s2s.hessian(several_uses, argnums=1)(P, 0.7)


def test_a_call_without_rules_or_of_a_plain_function_parameter_is_refused_at_the_line():
    class Bare:
        def __call__(self, x):
            return x

    s2s.base.vspace.register_space(Bare, zeros=lambda f: f, add=lambda a, b: a, scalar_mul=lambda f, a: f)
    with pytest.raises(s2s.S2SError, match=r"(?s)test_vector_spaces.py.*Bare.__call__"):
        s2s.grad(apply_param)(Bare(), 1.0)
    with pytest.raises(s2s.S2SError, match=r"(?s)test_vector_spaces.py.*`h` is a parameter.*functools.partial"):
        s2s.grad(apply_param, argnums=1)(np.sin, 1.0)
    with pytest.raises(s2s.S2SError, match=r"(?s)test_vector_spaces.py.*Bare.__call__"):
        s2s.jvp(apply_param, (Bare(), 1.0), (Bare(), 1.0))
    # its value needs no rule: a plain function given as a parameter is called when the code runs
    np.testing.assert_allclose(s2s.jit(apply_param)(np.sin, 1.0), 2.0 * np.sin(1.0), rtol=1e-15)
    np.testing.assert_allclose(s2s.grad(lambda x, h: apply_param(h, 1.0) * x)(3.0, np.cos), 2.0 * np.cos(1.0),
                               rtol=1e-15)


class Scaler:  # callable with rules, not a vector space: differentiable in its argument, not in itself
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * np.sin(x)


s2s.defvjp(Scaler.__call__, x="g * self.k * xp.cos(x)")


def test_an_object_with_rules_that_is_no_vector_space_is_differentiated_in_its_arguments():
    got = s2s.grad(apply_param, argnums=1)(Scaler(3.0), 0.4)
    np.testing.assert_allclose(got, (apply_param(Scaler(3.0), 0.4 + EPS) - apply_param(Scaler(3.0), 0.4 - EPS))
                               / (2 * EPS), rtol=1e-8)
    with pytest.raises(s2s.S2SError, match="Scaler"):
        s2s.grad(apply_param)(Scaler(3.0), 0.4)


def test_a_missing_rule_for_an_argument_a_derivative_reaches_is_refused():
    class OnlySelf(Poly):
        @primitive
        def __call__(self, x):
            return Poly.__call__(self, x)

    defvjp(func(OnlySelf.__call__), lambda ans, p, x: lambda g: OnlySelf({k: g * x ** k for k in range(4)}))
    PolySpace.register(OnlySelf)
    p = OnlySelf(P.coefs)
    g = s2s.grad(squared_error)(p, XS, YS)
    assert type(g) is OnlySelf
    with pytest.raises(s2s.S2SError, match="no VJP rule .* `x`"):
        s2s.grad(two_spaces, argnums=2)(p, p, 0.4)
    with pytest.raises(s2s.S2SError, match="no JVP rule"):
        s2s.jvp(squared_error, (p, XS, YS), (p, [0.0] * 4, [0.0] * 4))


def test_autograd_itself_agrees():
    autograd = pytest.importorskip("autograd")
    import autograd.extend as real

    class RealPoly(Poly):
        @real.primitive
        def __call__(self, x):
            return Poly.__call__(self, x)

        def __add__(self, other):
            return real.vspace(self).add(self, other)

    real.defvjp(RealPoly.__call__, lambda ans, p, x: lambda g: RealPoly({k: g * x ** k for k in range(4)}))

    class RealSpace(real.VSpace):
        __init__, zeros, _add, _scalar_mul, _inner_prod = (
            getattr(PolySpace, n) for n in ("__init__", "zeros", "_add", "_scalar_mul", "_inner_prod"))

    class RealPolyBox(real.Box, RealPoly):
        pass

    RealSpace.register(RealPoly)
    RealPolyBox.register(RealPoly)
    want = autograd.grad(squared_error)(RealPoly(P.coefs), XS, YS)
    got = s2s.grad(squared_error)(P, XS, YS)
    assert sorted(got.coefs) == sorted(want.coefs)
    np.testing.assert_allclose([got.coefs[k] for k in sorted(got.coefs)], [want.coefs[k] for k in sorted(want.coefs)],
                               rtol=1e-12)
