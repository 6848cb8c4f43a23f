"""An axis of a 0-d example under vmap does what NumPy does to that number (issue 44, the keyword
fuzzer): NumPy's ufunc reductions and scans take axis 0 or -1 of a number (`np.sum(x, axis=0)` is
x, `np.cumsum`'s [x]), its other functions raise AxisError (`np.std(x, axis=0)`, `np.sort`,
`np.flip`). vmap returned a number for np.std and ran np.fft.fft(v, axis=-1) across the examples.
Each operation, with the axis a constant 0 or -1 or a variable: vmap against the loop over the
examples, the loop's values, or the loop's error class. The fact is declared on each primitive's
batching rule (`along(..., number=True)`, s2s/compiler/primitives)."""

import numpy as np
import pytest
from helpers_modules import module_of

import s2s

OPS = {
    "sum": "np.sum(v, axis=AX)", "mean": "np.mean(v, axis=AX)", "std": "np.std(v, axis=AX)",
    "var": "np.var(v, axis=AX)", "max": "np.max(v, axis=AX)", "amin": "np.amin(v, axis=AX)",
    "prod": "np.prod(v, axis=AX)", "ptp": "np.ptp(v, axis=AX)", "all": "np.all(v > 0, axis=AX)",
    "any": "np.any(v > 0, axis=AX)", "count_nonzero": "np.count_nonzero(v, axis=AX)",
    "argmax": "np.argmax(v, axis=AX)", "argmin": "np.argmin(v, axis=AX)", "argsort": "np.argsort(v, axis=AX)",
    "sort": "np.sort(v, axis=AX)", "flip": "np.flip(v, axis=AX)", "cumsum": "np.cumsum(v, axis=AX)",
    "cumprod": "np.cumprod(v, axis=AX)", "median": "np.median(v, axis=AX)", "nanmean": "np.nanmean(v, axis=AX)",
    "nanstd": "np.nanstd(v, axis=AX)", "nanvar": "np.nanvar(v, axis=AX)", "nansum": "np.nansum(v, axis=AX)",
    "nanmax": "np.nanmax(v, axis=AX)", "nanmedian": "np.nanmedian(v, axis=AX)", "nanprod": "np.nanprod(v, axis=AX)",
    "nanargmax": "np.nanargmax(v, axis=AX)", "nancumsum": "np.nancumsum(v, axis=AX)",
    "quantile": "np.quantile(v, 0.5, axis=AX)", "percentile": "np.percentile(v, 50, axis=AX)",
    "nanquantile": "np.nanquantile(v, 0.5, axis=AX)", "partition": "np.partition(v, 0, axis=AX)",
    "argpartition": "np.argpartition(v, 0, axis=AX)", "roll": "np.roll(v, 1, axis=AX)",
    "average": "np.average(v, axis=AX)", "delete": "np.delete(v, 0, axis=AX)",
    "insert": "np.insert(v, 0, 2.0, axis=AX)", "gradient": "np.gradient(v, axis=AX)",
    "take": "np.take(v, 0, axis=AX)", "take_along_axis": "np.take_along_axis(v, np.array(0), axis=AX)",
    "compress": "np.compress([True], v, axis=AX)", "norm": "np.linalg.norm(v, axis=AX)",
    "vector_norm": "np.linalg.vector_norm(v, axis=AX)", "expand_dims": "np.expand_dims(v, axis=AX)",
    "squeeze": "np.squeeze(v, axis=AX)", "repeat": "np.repeat(v, 2, axis=AX)",
    "cumulative_sum": "np.cumulative_sum(v, axis=AX)", "diff": "np.diff(v, axis=AX)",
    "trapezoid": "np.trapezoid(v, axis=AX)", "fft": "np.fft.fft(v, axis=AX)", "split": "np.split(v, 1, axis=AX)",
    "rollaxis": "np.rollaxis(v, AX)", "moveaxis": "np.moveaxis(v, AX, 0)", "mean_method": "v.mean(axis=AX)",
    "std_method": "v.std(axis=AX)", "sum_method": "v.sum(axis=AX)", "append": "np.append(v, v, axis=AX)",
    "fftshift": "np.fft.fftshift(v, axes=AX)", "swapaxes": "np.swapaxes(v, AX, 0)",
    "sliding_window": "np.lib.stride_tricks.sliding_window_view(v, 1, axis=AX)",
}
FORMS = (("c0", "0", 0), ("cm1", "-1", -1), ("var0", "ax", 0), ("varm1", "ax", -1))
CASES = [(f"{name}_{tag}", ax) for name in OPS for tag, _, ax in FORMS]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    lines = ["import numpy as np", ""]
    for name, expr in OPS.items():
        for tag, spelled, _ in FORMS:
            lines += ["", f"def {name}_{tag}(v, ax):", f"    return {expr.replace('AX', spelled)}", ""]
    lines += ["", "def rollaxis_far(v, ax):", "    return np.rollaxis(v, ax)", ""]
    return module_of(tmp_path_factory.mktemp("zero_rank"), "axis_zero_rank_cases", lines)


def _check(f, xs, ax):
    """vmap of f over the first axis of xs against the loop over the examples."""
    try:
        want = [f(x, ax) for x in xs]
    except Exception as e:  # noqa: BLE001  (NumPy's own error on one example)
        with pytest.raises(type(e)):
            s2s.vmap(f, in_axes=(0, None))(xs, ax)
        return "raised"
    got = s2s.vmap(f, in_axes=(0, None))(xs, ax)
    if isinstance(want[0], (list, tuple)):
        for k in range(len(want[0])):
            np.testing.assert_allclose(got[k], np.stack([w[k] for w in want]))
    else:
        assert np.shape(got) == (len(xs),) + np.shape(want[0])
        np.testing.assert_allclose(got, np.stack(want))
    return "value"


@pytest.mark.parametrize("name,ax", CASES, ids=[c[0] for c in CASES])
def test_vmap_of_an_axis_of_a_number_is_the_loop(module, name, ax):
    _check(getattr(module, name), np.array([1.5, -0.5, 2.0]), ax)


def test_numpy_draws_both_outcomes():
    """The table holds operations NumPy applies to a number along axis 0 and ones it refuses."""
    x = np.float64(1.5)
    assert np.sum(x, axis=0) == 1.5 and np.cumsum(x, axis=-1).shape == (1,)
    for f in (np.std, np.mean, np.sort, np.flip):
        with pytest.raises(np.exceptions.AxisError):
            f(x, axis=0)


@pytest.mark.parametrize("ax", [1, 3, -4])
def test_rollaxis_out_of_range_raises_rather_than_wrapping(module, ax):
    """np.rollaxis's helper wrapped the axis (`axis % ndim`): axis 3 of a vector rolled axis 0."""
    assert _check(module.rollaxis_far, np.ones((2, 3)), ax) == "raised"


@pytest.mark.parametrize("name", ["sum", "mean", "std", "var", "prod", "max", "median", "nansum", "vector_norm"])
@pytest.mark.parametrize("tag", ["c0", "varm1"])
def test_vmap_of_grad_at_a_number_is_the_loop(module, name, tag):
    """The derivative follows: vmap(grad) raises where grad of one example raises."""
    gf = s2s.grad(getattr(module, f"{name}_{tag}"))
    xs = np.array([1.5, -0.5, 2.0])
    try:
        want = [gf(x, -1) for x in xs]
    except np.exceptions.AxisError:
        with pytest.raises(np.exceptions.AxisError):
            s2s.vmap(gf, in_axes=(0, None))(xs, -1)
        return
    np.testing.assert_allclose(s2s.vmap(gf, in_axes=(0, None))(xs, -1), np.stack(want))
