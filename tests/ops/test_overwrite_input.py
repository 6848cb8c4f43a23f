"""Parameters that let NumPy write into an input (`overwrite_input=True` of np.percentile, median
and their kin: NumPy partitions the array in place): a derivative rule reading that input would
see it reordered, so every transform refuses the call at the user's line, or gives NumPy's value
and central differences' derivative on an input built inside the function (fresh and unsorted at
each call). The keyword sweep's base calls missed it: their arguments were already partitioned
by the plain call that came first. Found by tools/fuzz.py --keywords (issue 44, family 2)."""
import importlib.util
import inspect

import numpy as np
import pytest

import s2s
from s2s.compiler.primitives import keywords, registry

OVERWRITING = sorted(k for k in registry.PRIMS for name, _, _ in (keywords.numpy_parameters(k) or ())
                     if name.startswith("overwrite"))


def test_the_operations_are_read_from_the_signatures():
    assert {"xp.percentile", "xp.quantile", "xp.median", "xp.nanmedian"} <= set(OVERWRITING)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """`loss_<op>(x)`: a fresh copy of x (rows unsorted) through the operation with overwrite_input=True."""
    lines = ["import numpy as np", ""]
    for key in OVERWRITING:
        op = key[3:]
        q = ", 40.0" if "percentile" in op else ", 0.4" if "quantile" in op else ""
        lines += ["", f"def loss_{op}(x):", "    a = x * 1.0",
                  f"    return np.sum(np.sin(1.3 * np.{op}(a{q}, axis=1, overwrite_input=True)))", ""]
    path = tmp_path_factory.mktemp("overwrite") / "overwrite_cases.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("overwrite_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, str(path)


@pytest.mark.parametrize("key", OVERWRITING)
def test_an_operation_writing_into_its_input_is_refused_or_right(module, key):
    mod, path = module
    loss = getattr(mod, f"loss_{key[3:]}")
    line = inspect.getsourcelines(loss)[1] + 2
    x = np.random.default_rng(3).permutation(15).reshape(3, 5) * 0.3 - 2.0  # (distinct, unsorted)
    want = loss(x)
    d = np.random.default_rng(4).standard_normal(x.shape)
    fd = (loss(x + 1e-6 * d) - loss(x - 1e-6 * d)) / 2e-6
    runs = {"grad": lambda: float(np.sum(s2s.grad(loss)(x) * d)), "jvp": lambda: float(s2s.jvp(loss, (x,), (d,))[1]),
            "jit": lambda: s2s.jit(loss)(x), "vmap": lambda: s2s.vmap(loss)(np.stack([x, x[::-1]]))}
    for name, run in runs.items():
        try:
            got = run()
        except s2s.S2SError as e:
            assert f"{path.rsplit('/', 1)[-1]}:{line}:" in str(e).splitlines()[0], str(e)
            continue
        if name in ("grad", "jvp"):
            assert abs(got - fd) <= 1e-5 * (1 + abs(fd)), f"{name} {got}, central differences {fd}"
        elif name == "jit":
            assert got == pytest.approx(want, rel=1e-12)
        else:
            assert np.allclose(got, [loss(x), loss(x[::-1])], rtol=1e-12)
