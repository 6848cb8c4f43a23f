"""Quantiles with NumPy's methods that pick or average the nearest ranks ('lower', 'higher',
'nearest', 'midpoint'; found by the fuzzer's --keywords campaign, where s2s refused them when the
generated code ran): the derivative is the chosen entries' weights, checked under jit, grad, jvp and
vmap(grad) against NumPy and central differences, at virtual indices that are whole, halves (NumPy's
'nearest' rounds them to even) and in between."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 7))
X[1, 2] = np.nan  # (the nan* forms skip it; n = 6 there)


@pytest.mark.parametrize("method", ("lower", "higher", "nearest", "midpoint", "linear"))
@pytest.mark.parametrize("q", (0.3, 0.5, 0.25, [1 / 12, 0.9]))  # 0.25 * 6 and 6 / 12: halves
def test_quantile_method_every_path(method, q):
    x = np.where(np.isnan(X), 0.7, X)
    for fn, data in ((np.quantile, x), (np.nanquantile, X)):
        def f(a):
            return np.sum(np.sin(fn(a, q, axis=1, method=method)) * np.arange(1.0, 4.0)[:, None].T)
        assert np.allclose(s2s.jit(f)(data), f(data))
        g = s2s.grad(f)(data)
        np.testing.assert_allclose(g, np.nan_to_num(fd_grad(f, data)), atol=1e-6)
        t = RNG.normal(size=data.shape)
        assert s2s.jvp(f, (data,), (t,))[1] == pytest.approx(np.nansum(g * t), rel=1e-9, abs=1e-12)
    xs = np.stack([x, x[::-1] * 0.5])
    f = lambda a: np.sum(np.quantile(a, q, axis=0, method=method) ** 2)  # noqa: E731
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [fd_grad(f, xs[0]), fd_grad(f, xs[1])], atol=1e-6)


@pytest.mark.parametrize("method", ("lower", "nearest", "midpoint"))
def test_percentile_method_whole_array(method):
    x = np.where(np.isnan(X), 0.7, X)
    f = lambda a: np.percentile(a, 40.0, method=method) ** 2  # noqa: E731
    np.testing.assert_allclose(s2s.grad(f)(x), fd_grad(f, x), atol=1e-6)


def test_other_methods_are_refused_naming_them():
    f = lambda a: np.quantile(a, 0.3, method="inverted_cdf")  # noqa: E731
    with pytest.raises(s2s.S2SError, match="inverted_cdf"):
        s2s.grad(f)(np.arange(5.0))
