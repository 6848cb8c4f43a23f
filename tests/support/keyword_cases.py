"""The operation x keyword cases (issue 44, family 2), shared by the keyword sweep
(tests/ops/test_keyword_sweep.py) and the fuzzer's `--keywords` (tools/fuzz_keywords.py): every
parameter of NumPy's signature of every operation the registry declares, at values other than its
default, each a call's source over the arguments of a base call.

The base call of an operation is its spec's (op_specs.py: the first `np.<op>(...)` call its
function returns, with the spec's draws), or, for an operation without one, the call of it on float
matrices (one or two). A parameter with a default is given values that differ from it and from the
base call's, drawn from the parameter's type and name: the other booleans, integers past the ends
(out-of-range axes and indices, negative ones), crossed bounds, the other documented strings
(`order="F"`, `mode="clip"`), every one of them (np.pad's `mode="maximum"` was the fifth).
"""
from __future__ import annotations

import ast
import inspect

from op_specs import SPECS

from s2s.compiler.primitives import keywords, registry

# the casts' and views' parameters (their own tests), `out=` (refused everywhere) and what changes no value
SKIPPED = {"out", "dtype", "copy", "like", "device", "subok", "signature"}

# the other documented values of string parameters (NumPy's documentation), by parameter name,
# with operation-specific ones first
CHOICES = {
    ("take", "mode"): ["'clip'", "'wrap'"], ("linalg.qr", "mode"): ["'r'", "'complete'", "'raw'"],
    ("pad", "mode"): ["'edge'", "'reflect'", "'symmetric'", "'wrap'", "'maximum'", "'mean'", "'minimum'", "'median'",
                      "'linear_ramp'"],
    ("convolve", "mode"): ["'same'", "'valid'"], ("correlate", "mode"): ["'same'", "'valid'"],
    ("pad", "reflect_type"): ["'odd'"], ("choose", "mode"): ["'clip'", "'wrap'"],
    "order": ["'F'", "'A'", "'K'"], "side": ["'right'"], "kind": ["'stable'", "'heapsort'", "'mergesort'"],
    "method": ["'lower'", "'nearest'", "'midpoint'", "'inverted_cdf'", "'higher'", "'averaged_inverted_cdf'",
               "'closest_observation'", "'interpolated_inverted_cdf'", "'hazen'", "'weibull'", "'median_unbiased'",
               "'normal_unbiased'"], "norm": ["'ortho'", "'forward'"],
    "UPLO": ["'U'"], "casting": ["'unsafe'"], "indexing": ["'ij'"], "interpolation": ["'lower'"],
    "mode": ["'clip'"], "edge_order": ["2"],
    **{("fft." + k, "norm"): ["'ortho'", "'forward'"] for k in ("fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2",
                                                                "irfft2", "fftn", "ifftn", "rfftn", "irfftn")},
}
# by parameter name, for a default of None or no value
BY_NAME = {
    "axis": ["0", "-1", "5"], "axes": ["(1, 0)"], "keepdims": ["True"], "initial": ["0.5", "-4.0"],
    "where": ["{x} > 0.0"], "ord": ["1", "-1", "np.inf"], "a_min": ["1.0"], "a_max": ["-1.0"],
    "min": ["0.0"], "max": ["0.5"], "rcond": ["0.5"], "rtol": ["0.5"], "tol": ["0.5"], "n": ["2", "7"],
    "k": ["1", "-1"], "ddof": ["1"], "bins": ["3"], "num": ["4"], "decimals": ["1", "-1"], "weights": ["{x}"],
    "prepend": ["0.5"], "append": ["0.5"], "shift": ["-1"], "fill_value": ["2.5"], "hermitian": ["True"],
    "full_matrices": ["False"], "compute_uv": ["False"], "endpoint": ["False"], "retstep": ["True"],
    "upper": ["True"], "sorter": [], "subscripts": [], "s": ["(2, 5)"],
}
SAMPLE = 2  # values per parameter (the first ones: deterministic)


def values(op: str, name: str, default) -> list[str]:
    """Sources of values of parameter `name` of operation `op` other than its default (`{x}`: the first argument)."""
    if (op, name) in CHOICES:
        return CHOICES[(op, name)]
    if name in CHOICES and isinstance(default, str):
        return [v for v in CHOICES[name] if ast.literal_eval(v) != default]
    if isinstance(default, bool):
        return [repr(not default)]
    if name in BY_NAME:
        return [v for v in BY_NAME[name] if not _equal(v, default)]
    if isinstance(default, int):
        return [repr(v) for v in (default + 1, -1, 5) if v != default]
    if isinstance(default, float):
        return [repr(v) for v in (default + 0.5, -1.0) if v != default]
    return []


def _equal(src: str, default) -> bool:
    """Whether the value `src` is the default itself."""
    try:
        return ast.literal_eval(src) == default and type(ast.literal_eval(src)) is type(default)
    except (ValueError, SyntaxError):
        return False


def base_calls():
    """(operation, source of its base call over parameters x0, x1..., the draws) per operation."""
    out = {}
    for sp in SPECS:
        if sp.op in out:
            continue
        tree = ast.parse(inspect.getsource(sp.fn))
        fn = tree.body[0]
        params = [a.arg for a in fn.args.args]
        want = "np." + sp.op
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and ast.unparse(n.func) == want]
        if calls:
            out[sp.op] = (calls[0], params, sp.draws)
    return out


def base_call(op: str, params, bases, shape=(3, 4), most: int | None = 2):
    """(call, argument names, draws) of `np.<op>` as the sweeps call it: its spec's base call, or
    else a call of its required parameters on standard normal draws of `shape` (None where there
    are none or more than `most` of them)."""
    if op in bases:
        return bases[op]
    required = [n for n, d, _ in params if d is inspect.Parameter.empty]
    if most is not None and not 1 <= len(required) <= most:
        return None
    names = [f"x{k}" for k in range(len(required))]
    draws = [lambda rng: rng.standard_normal(shape)] * len(required)
    return ast.parse(f"np.{op}({', '.join(names)})", mode="eval").body, names, draws


def reads_helpers(call, names) -> bool:
    """Whether the base call reads a name other than `np` and its arguments (a helper of op_specs,
    such as _with_nan, which a generated module of calls does not have)."""
    return bool({n.id for n in ast.walk(call) if isinstance(n, ast.Name)} - {"np", *names})


def _with_base_calls():
    """(primitive key, operation, NumPy's parameters, its base call (call, argument names, draws))
    for each operation with known parameters and a base call, in the registry's sorted order."""
    bases = base_calls()
    for key in sorted(registry.PRIMS):
        params = keywords.numpy_parameters(key)
        if params is not None and (base := base_call(key[3:], params, bases)) is not None:
            yield key, key[3:], params, base


def cases(sample: int = SAMPLE) -> list[tuple]:
    """(primitive key, parameter, value source, call source, argument names, their draws) for each
    parameter of each operation at each of its first `sample` values."""
    cases = []
    for key, op, params, (call, names, draws) in _with_base_calls():
        positional = [n for n, _, kw_only in params if not kw_only]
        given = {k.arg: ast.unparse(k.value) for k in call.keywords}
        given |= {n: ast.unparse(a) for n, a in zip(positional, call.args)}
        for name, default, kw_only in params:
            if name in SKIPPED or default is inspect.Parameter.empty:
                continue
            chosen = [v for v in values(op, name, default) if v.format(x=names[0]) != given.get(name)]
            documented = isinstance(default, str) or (op, name) in CHOICES  # (NumPy's list of strings: every one)
            for src in chosen if documented else chosen[:sample]:
                value = ast.parse(src.format(x=names[0]), mode="eval").body
                args = [value if n == name else a for n, a in zip(positional, call.args)]
                kws = [k for k in call.keywords if k.arg != name]
                if name not in positional[:len(call.args)]:
                    kws.append(ast.keyword(arg=name, value=value))  # (one the base call gives by position: replaced)
                cases.append((key, name, src, ast.unparse(ast.Call(func=call.func, args=args, keywords=kws)), names,
                              draws))
    return cases


def default_cases() -> list[tuple]:
    """(primitive key, parameter, its default's source, call source, argument names, draws) for each
    parameter with a literal default that the base call does not give, given by keyword at NumPy's
    default (`np.full_like(x, v, order='K')`, `np.quantile(x, q, weights=None)`)."""
    out = []
    for key, _, params, (call, names, draws) in _with_base_calls():
        if reads_helpers(call, names):
            continue
        positional = [n for n, _, kw_only in params if not kw_only]
        given = {k.arg for k in call.keywords} | set(positional[:len(call.args)])
        for name, default, _ in params:
            if default is inspect.Parameter.empty or name in given:
                continue
            src = repr(default)
            try:
                if ast.literal_eval(src) != default:
                    continue
            except (ValueError, SyntaxError):
                continue  # (np._NoValue, a callable: no literal)
            c = ast.parse(ast.unparse(call), mode="eval").body
            c.keywords = list(c.keywords) + [ast.keyword(arg=name, value=ast.parse(src, mode="eval").body)]
            out.append((key, name, src, ast.unparse(c), names, draws))
    return out
