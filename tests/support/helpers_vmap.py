"""Checks shared by the vmap tests: a batched result against a Python loop over the examples, and a
scalar function's gradient and JVP against central differences."""
import numpy as np

import s2s


def batch_args(examples, axes):
    """(in_axes, batched arguments, each example's own arguments) of the per-example argument
    tuples `examples` under `axes`: an int, "last" (after the example's last axis), or None (the
    first example's value, shared by all)."""
    first = examples[0]
    in_axes = tuple(np.ndim(first[i]) if ax == "last" else ax for i, ax in enumerate(axes))
    batched = [first[i] if ax is None else np.stack([ex[i] for ex in examples], axis=ax)
               for i, ax in enumerate(in_axes)]
    per_example = [tuple(first[i] if ax is None else ex[i] for i, ax in enumerate(axes)) for ex in examples]
    return in_axes, batched, per_example


def assert_stacked(got, want, rtol=1e-12, atol=1e-12):
    """`got` (an array, or a tuple/list of them) equals the per-example results `want` stacked on
    axis 0, part by part and shape included."""
    if isinstance(want[0], (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want[0])
        for k, g in enumerate(got):
            assert_stacked(g, [w[k] for w in want], rtol, atol)
        return
    expected = np.stack([np.asarray(w) for w in want])
    assert np.shape(got) == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def assert_grad_and_jvp_match_differences(g, args, rng, jvp=True, eps=1e-6, rtol=1e-6):
    """s2s.grad of the scalar function `g` in all its arguments and (with `jvp`) s2s.jvp, along a
    random direction drawn from `rng`, equal the central difference of `g` along it."""
    grads = s2s.grad(g, tuple(range(len(args))))(*args)
    ds = [rng.standard_normal(np.shape(a)) for a in args]
    plus = [a + eps * d for a, d in zip(args, ds)]
    minus = [a - eps * d for a, d in zip(args, ds)]
    fd = (g(*plus) - g(*minus)) / (2 * eps)
    np.testing.assert_allclose(sum(np.sum(gr * d) for gr, d in zip(grads, ds)), fd, rtol=rtol)
    if jvp:
        np.testing.assert_allclose(s2s.jvp(g, tuple(args), tuple(ds))[1], fd, rtol=rtol)
