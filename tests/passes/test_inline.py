"""Inlining under jit: calls of user functions and of transformed functions disappear from the
jit version, whose results equal the function's; functions with the user's own derivative rules
and recursive functions stay calls, so grad of the jit version still uses the rules."""

import re

import numpy as np
from helpers_kernels import assert_fused

import s2s
from s2s.compiler.emit import kernels


def helper(a, b):
    c = a * b
    return c + 1.0


def outer(x, y):
    z = helper(x, y)
    return np.sum(helper(z, x))


def returns_pair(a):
    return a * 2.0, np.sin(a)


def unpacks(x):
    p, q = returns_pair(x)
    return p * q


GRAD_OUTER = s2s.grad(outer)


def uses_grad(x, y):
    return GRAD_OUTER(x, y) * 2.0


@s2s.custom_vjp
def clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (np.clip(g, -0.5, 0.5),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def uses_custom(x):
    return np.sum(clip_gradient(x) * 3.0)


def countdown(x, n):
    if n <= 0:
        return x
    return countdown(x * 0.5, n - 1)


def uses_recursion(x):
    return countdown(x, 3) + 1.0


def _calls(src, name):
    return re.search(rf"\b{name}\w*\(", src) is not None


def _source(j, *args):
    """The code lines (comments dropped) of the jit versions `j` built for `args`."""
    j(*args)
    text = "\n".join(s2s.source(v) for v in j._versions.values())
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_user_functions_are_inlined():
    x, y = np.linspace(-1, 1, 7), np.linspace(0, 2, 7)
    j = s2s.jit(outer)
    assert j(x, y) == outer(x, y)
    src = _source(s2s.jit(outer), x, y)
    assert not _calls(src, "helper")
    np.testing.assert_array_equal(s2s.jit(unpacks)(x), unpacks(x))
    src = _source(s2s.jit(unpacks), x)
    assert not _calls(src, "returns_pair") and "p, q =" not in src  # the returned pair is unpacked away


def test_transformed_functions_are_inlined():
    x, y = np.linspace(-1, 1, 7), np.linspace(0, 2, 7)
    np.testing.assert_allclose(s2s.jit(uses_grad)(x, y), uses_grad(x, y), rtol=1e-14)
    assert not _calls(_source(s2s.jit(uses_grad), x, y), "grad_outer")


def test_custom_rules_stay_calls():
    x = np.linspace(-2.0, 2.0, 5)
    j = s2s.jit(uses_custom)
    assert j(x) == uses_custom(x)
    np.testing.assert_array_equal(s2s.grad(j)(x), np.full(5, 0.5))  # the rule's clipped 3.0
    np.testing.assert_array_equal(s2s.grad(uses_custom)(x), np.full(5, 0.5))


def test_recursion_stays_a_call():
    x = np.linspace(0.0, 1.0, 4)
    np.testing.assert_array_equal(s2s.jit(uses_recursion)(x), uses_recursion(x))
    assert _calls(_source(s2s.jit(uses_recursion), x), "countdown")


def ping(x, n):
    y = pong(x * 0.5, n - 1) if n > 0 else x  # one return: inlinable, though mutually recursive
    return y


def pong(x, n):
    y = ping(np.sin(x), n - 1) if n > 0 else x
    return y


def uses_mutual_recursion(x):
    return ping(x, 5) + 1.0


def test_mutual_recursion_is_inlined_once_per_chain():
    """ping calls pong, which calls ping: each is inlined once along a chain of inlined calls, not
    unrolled until the inlining budget (64 calls) runs out (that made a hessian through a
    custom_jvp rule calling its own function compile seconds, from 1500-statement functions)."""
    x = np.linspace(0.0, 1.0, 4)
    np.testing.assert_allclose(s2s.jit(uses_mutual_recursion)(x), uses_mutual_recursion(x), rtol=1e-15)
    src = _source(s2s.jit(uses_mutual_recursion), x)
    assert _calls(src, "ping")  # the call that would close the cycle stays a call
    assert len(re.findall(r"\bnp\.sin\(|xp\.sin\(", src)) == 1  # pong's body, inlined once


def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def sum_selu(x):
    return np.sum(selu(x))


def test_jit_of_grad_sees_through_the_split():
    """Inlined into jit, the forward value of the split `selu` is dead (only its mask and exp
    feed the backward sweep), the unbroadcasts are no-ops by shape, and the rest is one fused
    kernel, with a boolean mask among its inputs: the same numbers as grad's."""
    x = np.random.default_rng(1).normal(size=3 * 65536 + 5)
    x[:3] = [np.nan, np.inf, -np.inf]
    g = s2s.grad(sum_selu)
    j = s2s.jit(g)
    with np.errstate(all="ignore"):
        assert_fused(j(x), g(x))  # the numba kernel's exp: within an ulp of NumPy's
        np.testing.assert_array_equal(j(x[:100]), g(x[:100]))
    src = _source(s2s.jit(g), x)
    assert "unbroadcast" not in src and "fwd_selu_t4" not in src
    if not kernels.available():  # S2S_NO_FUSE
        return
    assert "fused_0(" in src and src.count("xp.where(") <= 1
    fused = next(iter(j._versions.values())).__globals__["fused_0"]
    fused.fallback = None  # the kernel itself must run: a fallback call fails
    with np.errstate(all="ignore"):
        assert_fused(j(x), g(x))


SCALE = 2.0


def scaled(a):
    return a * SCALE


def uses_scaled(x):
    return np.sum(scaled(x) + 1.0)


def test_inlined_callee_sees_its_globals_change(monkeypatch):
    """An inlined callee's global is watched like the caller's own: a new value recompiles."""
    import sys
    x = np.ones(3)
    j = s2s.jit(uses_scaled)
    assert j(x) == 9.0
    assert not _calls(_source(s2s.jit(uses_scaled), x), "scaled")
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 5.0)
    assert j(x) == uses_scaled(x) == 18.0
