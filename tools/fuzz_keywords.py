"""The fuzzer's keyword calls (`python tools/fuzz.py --keywords`; issue 44, family 2): a block that
calls a known operation with one keyword argument at a value other than NumPy's default, drawn from
the operation's signature by the keyword sweep's tables (tests/support/keyword_cases.py: axis,
keepdims, order="F", mode="clip", negative and out-of-range values, crossed bounds).

A case's arguments are fixed draws inside the operation's domain (op_specs' draws, written into the
program as literals) plus a small smooth function of the program's values, so its derivatives reach
x and y; its results are folded into a scalar. What each case does under NumPy is decided once,
here: a case NumPy refuses makes the whole program raise, and `numpy_error_check` then requires every
transform to raise too (NumPy's class of error, or an S2SError), never a number. A case s2s refuses
must be refused with an S2SError at the user's call (`sound_refusal`); anything else must give the
plain function's values and derivatives, which the fuzzer's properties check.
"""
from __future__ import annotations

import ast
import functools
import math
import random
import re
import sys
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SUPPORT = Path(__file__).resolve().parents[1] / "tests" / "support"

CALL_NAME = "kr"  # the result of a block's keyword call: the line an S2SError must name
SCALE = 0.03  # how far the program's values move a case's arguments from its draws


@dataclass(frozen=True)
class KeywordCase:
    """One operation called with one parameter at a non-default value: `call` reads the arguments
    `kwa0`, `kwa1`, ... (the draws `args` plus the program's values); `error` is the class of NumPy's
    error for this call, or None, and `parts` the kinds of its results ('float', 'complex',
    'other'), one for a single array."""
    key: str
    param: str
    value: str
    call: str
    args: tuple
    error: type | None
    parts: tuple
    single: bool


def _kind(a) -> str | None:
    a = np.asarray(a)
    if a.dtype == object:
        return None
    if np.issubdtype(a.dtype, np.complexfloating):
        return "complex" if np.all(np.isfinite(a)) else None
    if np.issubdtype(a.dtype, np.floating):
        return "float" if np.all(np.isfinite(a)) else None
    return "other"


def _case(entry) -> KeywordCase | None:
    key, param, value, src, names, draws = entry
    from s2s.compiler.primitives import keywords
    fn = keywords.numpy_function(key)
    if param == "where" and isinstance(fn, np.ufunc):  # (no out=: NumPy leaves the masked entries uninitialized)
        return None
    if key in ("xp.empty", "xp.empty_like"):
        return None
    rng = np.random.default_rng(zlib.crc32(f"{key} {param} {value}".encode()))
    args = tuple(np.round(np.asarray(d(rng), dtype=np.float64), 4) for d in draws)
    tree = ast.parse(src, mode="eval")
    rename = {n: f"kwa{k}" for k, n in enumerate(names)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in rename:
            node.id = rename[node.id]
    if {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - {"np", *rename.values()}:
        return None  # (a helper of op_specs, such as _with_nan: not in the program)
    call = ast.unparse(tree)
    try:
        out = _run(call, args)
    except Exception as exc:  # noqa: BLE001  (NumPy refuses this value: the transforms must too)
        base = tree.body
        base.keywords = [k for k in base.keywords if k.arg != param]
        try:
            _run(ast.unparse(base), args)
        except Exception:  # noqa: BLE001  (the call raises at the default too: the draws do not fit it)
            return None
        return KeywordCase(key, param, value, call, args, type(exc), (), True)
    single = not isinstance(out, (tuple, list))
    parts = tuple(_kind(p) for p in ([out] if single else out))
    if not parts or None in parts or (not single and any(isinstance(p, (tuple, list)) for p in out)):
        return None
    return KeywordCase(key, param, value, call, args, None, parts, single)


def _run(call: str, args: tuple):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(call, {"np": np, **{f"kwa{k}": a.copy() for k, a in enumerate(args)}})  # noqa: S307


def _normal(*shape):
    return lambda rng: rng.standard_normal(shape)


# calls whose keyword gives a required argument a meaning of its own (the sweep varies parameters
# with defaults only): out-of-range and negative indices under mode="clip"/"wrap", crossed bounds,
# a cutoff that drops a singular value, a flattening axis=None, negative axes and shifts
EXTRA = [("xp.take", "mode", "'clip'", "np.take(x, np.array([-1, 0, 7, 2]), mode='clip')", [_normal(3, 4)]),
         ("xp.take", "mode", "'wrap'", "np.take(x, np.array([-5, 13, 2]), axis=1, mode='wrap')", [_normal(3, 4)]),
         ("xp.take", "mode", "'clip'", "np.take(x, np.array([[-2], [9]]), axis=-1, mode='clip')", [_normal(3, 4)]),
         ("xp.clip", "a_max", "crossed", "np.clip(x, 0.4, -0.3)", [_normal(3, 4)]),
         ("xp.clip", "a_max", "crossed arrays", "np.clip(x, y, y - 0.5)", [_normal(3, 4), _normal(4)]),
         ("xp.linalg.pinv", "rcond", "0.3", "np.linalg.pinv(x * np.array([1.0, 2.0, 0.1]), rcond=0.3)",
          [lambda rng: np.linalg.qr(rng.standard_normal((4, 3)))[0] + 0.0]),
         ("xp.concatenate", "axis", "None", "np.concatenate((x, y), axis=None)", [_normal(3, 4), _normal(2, 2)]),
         ("xp.roll", "shift", "-7", "np.roll(x, -7, axis=-1)", [_normal(3, 4)]),
         ("xp.roll", "axis", "(0, -1)", "np.roll(x, (1, -2), axis=(0, -1))", [_normal(3, 4)]),
         ("xp.swapaxes", "axis1", "-1", "np.swapaxes(x, -1, -3)", [_normal(2, 3, 4)]),
         ("xp.moveaxis", "source", "-1", "np.moveaxis(x, -1, 0)", [_normal(2, 3, 4)]),
         ("xp.diff", "n", "3", "np.diff(x, n=3, axis=0)", [_normal(5, 2)]),
         ("xp.flatten", "order", "'F'", "x.flatten('F')", [_normal(3, 4)]),
         ("xp.reshape", "order", "'F'", "x.reshape((2, 6), order='F')", [_normal(3, 4)]),
         ("xp.ravel", "order", "'F'", "np.ravel(x.T, order='F')", [_normal(3, 4)]),
         ("xp.max", "initial", "0.9", "np.max(x, axis=0, initial=0.9)", [_normal(3, 4)]),
         ("xp.sum", "where", "mask", "np.sum(x, axis=-1, where=np.array([True, False, True, False]))", [_normal(3, 4)]),
         ("xp.cumsum", "axis", "-2", "np.cumsum(x, axis=-2)", [_normal(2, 3, 4)]),
         ("xp.linalg.norm", "ord", "'fro'", "np.linalg.norm(x, ord='fro', axis=(-1, -2))", [_normal(2, 3, 4)]),
         # (found by reading the signatures: a spacing per axis, a vector under tril, casting beside dtype)
         ("xp.gradient", "varargs", "(0.5, 2.0)", "np.gradient(x, 0.5, 2.0, axis=(1, 0))", [_normal(3, 4)]),
         ("xp.tril", "m", "1-D", "np.tril(x, 1)", [_normal(4)]),
         ("xp.add", "casting", "'unsafe'", "np.add(x, y, dtype=int, casting='unsafe')", [_normal(3, 4), _normal(4)]),
         ("xp.matmul", "dtype", "complex", "np.matmul(x, y, dtype=np.complex128)", [_normal(2, 3), _normal(3, 2)])]


@functools.cache
def table() -> tuple[KeywordCase, ...]:
    """Every usable case of the keyword sweep's tables (three values per parameter), then EXTRA."""
    if str(SUPPORT) not in sys.path:
        sys.path.insert(0, str(SUPPORT))
    import keyword_cases
    extra = [(key, param, value, src, ["x", "y"][:len(draws)], draws) for key, param, value, src, draws in EXTRA]
    return tuple(c for c in map(_case, keyword_cases.cases(sample=3) + extra) if c is not None)


def index(key: str, param: str, value: str | None = None) -> int:
    """The number of the first case of operation `key` with parameter `param` (at `value`)."""
    return next(k for k, c in enumerate(table()) if (c.key, c.param) == (key, param) and value in (None, c.value))


@functools.cache
def _by_param() -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for k, c in enumerate(table()):
        out.setdefault(c.param, []).append(k)
    return out


def draw(rng: random.Random) -> int:
    """A case's number: half the draws uniform over the cases, half over the parameters first (so
    `order=` and `casting=`, which most operations have, do not crowd out the rare ones)."""
    if rng.random() < 0.5:
        return rng.randrange(len(table()))
    groups = _by_param()
    return rng.choice(groups[rng.choice(sorted(groups))])


def _literal(a: np.ndarray) -> str:
    return repr(float(a)) if a.ndim == 0 else f"np.array({a.tolist()!r})"


def _fold(ref: str, kind: str) -> str:
    if kind == "float":
        return f"np.sum(np.sin({ref} * 1.3 + 0.2))"
    if kind == "complex":
        return f"np.sum(np.sin(np.real({ref}) + 0.5 * np.imag({ref})))"
    return f"0.01 * np.sum({ref})"  # (integers and booleans: no derivative)


def block_lines(k: int, ve: str) -> list[str]:
    """The lines of a block calling case `k`, its arguments moved by `ve` (a vector of length 3)."""
    case = table()[k]
    lines = [f"kwv = np.tanh({ve} + 0.5 * acc)"]
    for j, a in enumerate(case.args):
        src = "kwv" if j % 2 == 0 else "kwv[::-1]"
        if a.ndim == 0:
            move = f"np.tanh(np.sum({src}))"
        else:
            move = f"np.reshape(np.tile({src}, {math.ceil(a.size / 3)})[:{a.size}], {a.shape!r})"
        lines.append(f"kwa{j} = {_literal(a)} + {SCALE} * {move}")
    lines.append(f"{CALL_NAME} = {case.call}")
    parts = [CALL_NAME] if case.single else [f"{CALL_NAME}[{i}]" for i in range(len(case.parts))]
    # (a call NumPy refuses is folded too: its result is used, so no transform may drop the call)
    folded = " + ".join(_fold(ref, kind) for ref, kind in zip(parts, case.parts)) if case.parts else _fold(CALL_NAME, "")
    lines.append(f"acc = acc * 0.8 + 0.2 * np.tanh({folded} + acc)")
    return lines


def raising(prog) -> bool:
    """Whether a block of `prog` calls a case NumPy refuses (the program raises)."""
    return any(b[0] == "kwcall" and table()[b[1]["k"]].error is not None for b in prog.blocks)


_PLACE = re.compile(r"fuzzprog_\d+_\d+\.py:(\d+):")


def _at_call(source: str, msg: str) -> bool:
    """Whether `msg` is an S2SError naming the program's line of a keyword call."""
    m = _PLACE.search(msg)
    if not msg.startswith("S2S") or m is None:
        return False
    lines = source.splitlines()
    line = int(m.group(1))
    return 0 < line <= len(lines) and lines[line - 1].lstrip().startswith(f"{CALL_NAME} = ")


# the properties that compute the function's value through s2s: where jit refuses the call (a
# parameter s2s does not model), each of these must refuse it too
VALUE_PROPS = ("grad_fd", "jvp_vjp", "jacfwd_jacrev")


def sound_refusal(prog, fails: dict) -> bool:
    """Whether every failure of `prog` is s2s's refusal of a keyword call at its line, consistently:
    a refusal of the value (by jit) is a refusal by every transform."""
    if not fails or not any(b[0] == "kwcall" for b in prog.blocks):
        return False
    source = prog.source()
    if not all(_at_call(source, m) for m in fails.values()):
        return False
    return "jit" not in fails or all(p in fails for p in VALUE_PROPS)


def numpy_error_check(f, x, y, s2s) -> str | None:
    """`f` (whose keyword call NumPy refuses) raises in NumPy; every transform must raise too: an
    S2SError, or NumPy's class of error. None when they do (or when the plain function runs after
    all), else what a transform did instead."""
    try:
        with np.errstate(all="ignore"):
            f(x.copy(), y.copy())
    except Exception as exc:  # noqa: BLE001
        want = type(exc)
    else:
        return None
    xs, ys = np.stack([x, -x]), np.stack([y, y])
    # (reverse mode of f itself: a lambda here would make s2s read and parse this file per program)
    attempts = {"jacrev": lambda: s2s.jacrev(f, argnums=(0, 1))(x, y),
                "jvp": lambda: s2s.jvp(f, (x, y), (x, y)), "vjp": lambda: s2s.vjp(f, x, y),
                "jacfwd": lambda: s2s.jacfwd(f)(x, y), "jit": lambda: s2s.jit(f)(x, y),
                "vmap": lambda: s2s.vmap(f)(xs, ys)}
    for name, attempt in attempts.items():
        try:
            with np.errstate(all="ignore"):
                attempt()
        except s2s.S2SError:
            continue
        except Exception as exc:  # noqa: BLE001
            got = type(exc)
            if issubclass(got, want) or (issubclass(want, got) and got not in (Exception, BaseException)):
                continue
            return f"{name} raises {got.__name__}: {str(exc)[:200]} where NumPy raises {want.__name__}"
        else:
            return f"{name} returned a value where NumPy raises {want.__name__}"
    return None
