"""Parameters passed by position past an operation's declared ones (issue 44, family 2):
`np.trace(a, 1, 0, 1, np.float32)` and `a.trace(1, 0, 1, np.float32)` gave float32 under jit but
float64 under vmap, whose helper dropped the fifth positional value; `dtype=np.float32` by keyword
was right. Such arguments are now passed by NumPy's names (keywords.by_name). For every operation
whose declaration lists the first of NumPy's positional parameters and NumPy has more, the call
with the next one by position must equal the call with it by keyword, under jit and vmap."""
from __future__ import annotations

import ast
import zlib

import numpy as np
import pytest
from helpers_compare import leaves
from helpers_modules import module_of
from keyword_cases import base_calls, values

import s2s
from s2s.compiler.primitives import keywords, registry
from s2s.errors import S2SError


def _cases() -> list[tuple]:
    bases = base_calls()
    out = []
    for key in sorted(registry.PRIMS):
        p, params = registry.lookup(key), keywords.numpy_parameters(key)
        if not params or key[3:] not in bases or isinstance(keywords.numpy_function(key), np.ufunc):
            continue
        call, names, draws = bases[key[3:]]
        declared = list(p.params)
        positional = [(n, d) for n, d, kw_only in params if not kw_only]
        if any(n.startswith("*") for n in declared) or [n for n, _ in positional[:len(declared)]] != declared \
                or len(positional) <= len(declared) or call.keywords or len(call.args) > len(declared):
            continue
        name, default = positional[len(declared)]
        if name == "out":
            continue
        fill = [ast.unparse(a) for a in call.args] + [repr(d) for _, d in positional[len(call.args):len(declared)]]
        for value in (values(key[3:], name, default) + (["np.float32"] if name == "dtype" else []))[:2]:
            value = value.format(x=names[0])
            out.append((key, f"np.{key[3:]}({', '.join(fill + [value])})",
                        f"np.{key[3:]}({', '.join(fill)}, {name}={value})", names, draws))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    lines = ["import numpy as np", ""]
    for i, (_, by_position, by_keyword, names, _) in enumerate(CASES):
        a = ", ".join(names)
        lines += ["", f"def position_{i}({a}):", f"    return {by_position}", "", "",
                  f"def keyword_{i}({a}):", f"    return {by_keyword}", ""]
    return module_of(tmp_path_factory.mktemp("past"), "past_declaration_cases", lines)


def test_the_cases_reach_trace():
    assert any(c[1].startswith("np.trace(") and c[1].endswith("np.float32)") for c in CASES), [c[1] for c in CASES]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[1] for c in CASES])
def test_by_position_is_by_keyword(module, i):
    key, _, _, _, draws = CASES[i]
    pos, kw = getattr(module, f"position_{i}"), getattr(module, f"keyword_{i}")
    args = tuple(np.asarray(d(np.random.default_rng(zlib.crc32(key.encode()))), dtype=np.float64) for d in draws)
    try:
        want = kw(*args)
    except Exception:  # noqa: BLE001  (NumPy refuses the value: the positional form must too)
        with pytest.raises(Exception):  # noqa: B017
            pos(*args)
        return
    for transform, a in ((s2s.jit, args), (s2s.vmap, tuple(np.stack([x, x]) for x in args))):
        try:
            got, ref = transform(pos)(*a), transform(kw)(*a)
        except S2SError:
            with pytest.raises(S2SError):
                transform(kw)(*a)
            continue
        for g, r in zip(leaves(got), leaves(ref)):
            assert g.shape == r.shape and g.dtype == r.dtype, (g.shape, g.dtype, r.shape, r.dtype)
            np.testing.assert_allclose(g, r, rtol=1e-12, equal_nan=True)
        if transform is s2s.jit:
            assert [g.dtype for g in leaves(got)] == [w.dtype for w in leaves(want)]
