"""`out` passed by position is refused as `out=` is (issue 44, family 2): `np.multiply(x, y, o)`,
`np.clip(x, lo, hi, o)`, `np.dot(a, b, o)`, `x.sum(0, None, o)`, `x.clip(lo, hi, o)` write into `o`,
which s2s did not follow: jit gave NumPy's value, but grad through `o` was silently zero and vmap
wrote or crashed. The positions are read from NumPy's signatures (a ufunc's `nin`, the place of
`out` in `inspect.signature`), for every operation of the registry that has one, in the function
form and, for an array method, the method form (the array first, so one position less)."""
from __future__ import annotations

import ast

import numpy as np
import pytest
from helpers_modules import module_of
from keyword_cases import base_call, base_calls, reads_helpers

import s2s
from s2s.compiler.primitives import keywords, registry
from s2s.errors import S2SError

METHODS = {m for p in registry.PRIMS.values() for m in p.methods} | {"round"}


def _literal(default) -> str | None:
    try:
        return repr(default) if ast.literal_eval(repr(default)) == default else None
    except (ValueError, SyntaxError):
        return None


def _out_positions(key: str) -> tuple[int, ...]:
    """Where NumPy's function takes `out` by position: after a ufunc's operands, else where its
    signature says."""
    fn = keywords.numpy_function(key)
    if isinstance(fn, np.ufunc):
        return tuple(range(fn.nin, fn.nin + fn.nout))
    names = [n for n, _, kw_only in keywords.numpy_parameters(key) or () if not kw_only]
    return (names.index("out"),) if "out" in names else ()


def _cases() -> list[tuple[str, str, str, list, list]]:
    """(operation, the call without `out`, the call with `o` at NumPy's position of `out`, argument
    names, draws) for each operation with a positional `out`, and its method form where it has one."""
    bases = base_calls()
    out = []
    for key in sorted(registry.PRIMS):
        positions = _out_positions(key)
        params = keywords.numpy_parameters(key)
        if not positions or params is None:
            continue
        op = key[3:]
        call, names, draws = base_call(op, params, bases, shape=(3, 3), most=None)
        if reads_helpers(call, names):
            continue
        positional = [n for n, _, kw_only in params if not kw_only]
        given = {k.arg: ast.unparse(k.value) for k in call.keywords}
        defaults = {n: d for n, d, _ in params}
        args = [ast.unparse(a) for a in call.args]
        for name in positional[len(args):positions[0]]:  # (those before `out`, by position: given or default)
            value = given.pop(name, None) or _literal(defaults.get(name))
            if value is None:
                break
            args.append(value)
        if len(args) != positions[0]:
            continue
        rest = "".join(f", {k}={v}" for k, v in given.items())
        plain = f"np.{op}({', '.join(args)}{rest})"
        out.append((key, plain, f"np.{op}({', '.join(args)}, o{rest})", names, draws))
        if op in METHODS and args:
            base = args[0] if args[0].isidentifier() else f"({args[0]})"
            out.append((key, plain, f"{base}.{op}({', '.join(args[1:] + ['o'])}{rest})", names, draws))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """Each case as `call_<i>` (returns `o`, written by the call) and `loss_<i>`."""
    lines = ["import numpy as np", ""]
    for i, (_, plain, written, names, _) in enumerate(CASES):
        a = ", ".join(names)
        lines += ["", f"def call_{i}({a}):", f"    o = np.zeros_like({plain})", f"    {written}", "    return o", "",
                  "", f"def loss_{i}({a}):", f"    return np.sum(np.sin(call_{i}({a}) * 1.0))", ""]
    return module_of(tmp_path_factory.mktemp("positional_out"), "positional_out_cases", lines)


def test_the_cases_reach_ufuncs_functions_and_methods():
    written = [c[2] for c in CASES]
    assert len(CASES) >= 80
    for src in ("np.multiply(x, y, o)", "np.sin(x, o)", "np.dot(a, b, o)", "(np.where(", "x.sum(", "np.stack("):
        assert any(w.startswith(src) for w in written), src


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[2] for c in CASES])
def test_positional_out_is_refused(module, i):
    _, _, _, _, draws = CASES[i]
    call, loss = getattr(module, f"call_{i}"), getattr(module, f"loss_{i}")
    rng = np.random.default_rng(5)
    args = tuple(np.asarray(d(rng), dtype=np.float64) for d in draws)
    try:
        with np.errstate(all="ignore"):
            call(*(a.copy() for a in args))
    except Exception as e:  # noqa: BLE001  (NumPy refuses the call: s2s raises too)
        with pytest.raises((type(e), S2SError)):
            s2s.jit(call)(*args)
        return
    with pytest.raises(S2SError, match="out="):
        s2s.jit(call)(*args)
    with pytest.raises(S2SError, match="out="):
        s2s.grad(loss)(*args)
    with pytest.raises(S2SError, match="out="):
        s2s.vmap(call)(*(np.stack([a, a]) for a in args))


def test_out_by_position_as_none_is_numpy_s():
    """`np.add(x, y, None)` and `x.sum(0, None, None)`: no array written, the result returned."""
    x, y = np.array([0.3, -1.2, 0.5]), np.array([2.0, 0.1, -0.4])
    g = s2s.grad(lambda a: np.sum(np.sin(np.add(a, y, None))) + a.sum(0, None, None))(x)
    np.testing.assert_allclose(g, np.cos(x + y) + 1.0, rtol=1e-12)
