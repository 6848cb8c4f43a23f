"""An axis out of an example's range under vmap raises NumPy's error, as the loop over the examples
does, never a number: a batching rule that wrapped the axis around (`axis % ndim`) made
`vmap(lambda a: np.gradient(a, axis=5))` return an array (tools/fuzz.py --keywords, issue 44).
The cases are the keyword sweep's (tests/support/keyword_cases.py) with every value of each axis
parameter, those NumPy refuses on one example."""
import zlib

import numpy as np
import pytest
from helpers_modules import module_of
from keyword_cases import cases

import s2s

AXES = ("axis", "axis1", "axis2", "axisa", "axisb", "axisc", "source", "destination", "start")


def _refused_by_numpy():
    out = []
    for key, name, value, src, names, draws in cases(sample=3):
        if name not in AXES:
            continue
        rng = np.random.default_rng(zlib.crc32(key.encode()))
        args = [np.asarray(d(rng), dtype=np.float64) for d in draws]
        try:
            eval(src, {"np": np, **dict(zip(names, args))})  # noqa: S307  (the sweep's own call)
        except Exception as e:  # noqa: BLE001
            out.append(pytest.param(src, names, args, type(e), id=f"{key[3:]}-{name}={value}"))
    return out


CASES = _refused_by_numpy()


def test_the_cases_reach_out_of_range_axes():
    assert len(CASES) >= 30 and any("gradient" in c.id and "axis=5" in c.id for c in CASES)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    lines = ["import numpy as np", ""]
    for i, c in enumerate(CASES):
        src, names = c.values[0], c.values[1]
        lines += ["", f"def call_{i}({', '.join(names)}):", f"    return {src}", ""]
    return module_of(tmp_path_factory.mktemp("axes"), "axis_range_cases", lines)


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c.id for c in CASES])
def test_vmap_raises_where_each_example_raises(module, i):
    _, _, args, error = CASES[i].values
    call = getattr(module, f"call_{i}")
    with pytest.raises((error, s2s.S2SError)):
        s2s.vmap(call)(*(np.stack([a, a * 0.5]) for a in args))
