"""The public corpus's harness: a `Case` record per author function, a loader for the authors'
files (kept unmodified under `<source>/upstream/`, not a package of ours), and the checks
tests/programs/test_public_corpus.py runs on every case.

A case compares s2s's gradient of the function a user would transform with the gradient the
author's own hand-written backward pass returns. Where the author's backward is wrong (`wrong=`
says how), s2s must agree with central differences instead and the author's must not. A case s2s
refuses or crashes on records the message (`refused=`) and is a strict xfail: it fails the run when
the message changes or the case starts working, so the counts stay honest.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import importlib.util
import inspect
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import s2s

CORPUS = Path(__file__).resolve().parent


@dataclass
class Case:
    """One author function under test.

    `fn` is what the user would transform (the differentiated arrays first; a small lambda only
    picks the scalar loss out of the author's forward), `args` its inputs (float64, seeded, small),
    `argnums` the differentiated ones, and `author_grad(*args)` the author's own gradient from their
    backward pass, shaped as `s2s.grad(fn, argnums)` returns it (one array for an int, a tuple for
    a tuple). `function` names the author's function(s) the case covers ("layers.affine_forward"),
    which the corpus counts. `wrong` says how the author's backward is wrong (then s2s is compared
    with central differences); `refused` is a phrase of the error s2s raises today, its type and
    message ("S2SError: ..." or, for a crash, "TypeError: ..."); then the case is a strict xfail.
    `static_argnums` are the arguments jit must treat as static (strings, shapes, dicts of modes).
    """

    name: str
    function: str
    fn: Callable
    args: tuple
    author_grad: Callable
    argnums: int | tuple[int, ...] = 0
    wrong: str | None = None
    refused: str | None = None
    static_argnums: tuple[int, ...] = ()
    rtol: float = 1e-6
    atol: float = 1e-9
    source: str = field(default="", compare=False)

    @property
    def id(self) -> str:
        return f"{self.source}/{self.name}"


# --- loading the authors' files ------------------------------------------------------------------

_LOADED: dict[tuple[Path, str], Any] = {}


def load(cases_file: str, relpath: str, stubs: dict[str, tuple[str, ...]] | None = None, py2: bool = False):
    """The author's module at `<source>/upstream/<relpath>` (e.g. "cs231n/layers.py"), imported
    under its own dotted name with `upstream/` first on sys.path, so the author's own imports of
    their other files work unmodified. Afterwards the modules it brought in are taken out of
    sys.modules again and the names they shadowed put back: two sources may both ship a
    `cs231n.layers`, and each must see its own.

    `stubs` stands in for modules the file imports but the functions under test never use
    (plotting, a package `__init__` that pulls in a whole training framework): each named module
    is an empty one, a package over its upstream folder where there is one (so its submodules
    still load, its `__init__` not run), holding the listed names as functions that raise.
    `py2` gives a Python 2 file's module `xrange = range`, as a Python 3 user of it would."""
    root = Path(cases_file).resolve().parent / "upstream"
    dotted = relpath.removesuffix(".py").replace("/", ".")
    if dotted.endswith(".__init__"):
        dotted = dotted.removesuffix(".__init__")
    key = (root, dotted)
    if key in _LOADED:
        return _LOADED[key]
    stubs = stubs or {}
    tops = {n.partition(".")[0] for n in [dotted, *stubs]}

    def ours(name: str) -> bool:
        return name.partition(".")[0] in tops

    shadowed = {n: sys.modules.pop(n) for n in list(sys.modules) if ours(n)}
    before = set(sys.modules)
    sys.path.insert(0, str(root))
    try:
        for name, names in stubs.items():
            sys.modules[name] = _stub(root, name, names)
        module = importlib.import_module(dotted)
    finally:
        sys.path.remove(str(root))
        for n in set(sys.modules) - before:
            if ours(n):
                del sys.modules[n]
        sys.modules.update(shadowed)
    if py2 and not hasattr(module, "xrange"):
        module.xrange = range
    _LOADED[key] = module
    return module


def _stub(root: Path, name: str, names: tuple[str, ...]) -> types.ModuleType:
    module = types.ModuleType(name, "a stand-in of the corpus harness")
    folder = root / name.replace(".", "/")
    if folder.is_dir():
        module.__path__ = [str(folder)]

    def unused(*args, **kwargs):
        raise RuntimeError(f"{name} is a stand-in of the corpus harness: the function under test used it")

    for n in names:
        setattr(module, n, unused)
    return module


def collect() -> list[Case]:
    """Every `tests/corpus/<source>/cases.py`'s CASES, each stamped with its source's folder name."""
    cases = []
    for path in sorted(CORPUS.glob("*/cases.py")):
        source = path.parent.name
        spec = importlib.util.spec_from_file_location(f"corpus_cases_{source}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for case in module.CASES:
            case.source = source
            cases.append(case)
    return cases


# --- the checks ----------------------------------------------------------------------------------

def fresh_args(case: Case) -> tuple:
    """A deep copy of the case's inputs: some authors' functions update their arguments or caches."""
    return copy.deepcopy(case.args)


def leaves(tree) -> list[np.ndarray]:
    """The arrays of a gradient: one array, or a tuple/list/dict of them."""
    if isinstance(tree, (tuple, list)):
        return [x for t in tree for x in leaves(t)]
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in leaves(tree[k])]
    return [np.asarray(tree, dtype=float)]


def close(a, b, rtol: float, atol: float) -> bool:
    """`a` and `b` the same list of leaves, equal to `rtol`/`atol`."""
    la, lb = leaves(a), leaves(b)
    return len(la) == len(lb) and all(x.shape == y.shape and np.allclose(x, y, rtol=rtol, atol=atol)
                                      for x, y in zip(la, lb))


def assert_close(got, want, rtol: float, atol: float, what: str) -> None:
    lg, lw = leaves(got), leaves(want)
    assert len(lg) == len(lw), f"{what}: {len(lg)} arrays against {len(lw)}"
    for i, (x, y) in enumerate(zip(lg, lw)):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"{what} (array {i})")


def scalar(case: Case, args: tuple) -> float:
    return float(case.fn(*args))


def fd_gradient(case: Case, eps: float = 1e-6):
    """Central differences of `case.fn` in each differentiated argument, shaped as s2s.grad's result."""
    nums = (case.argnums,) if isinstance(case.argnums, int) else tuple(case.argnums)
    out = []
    for k in nums:
        base = fresh_args(case)
        x = np.asarray(base[k], dtype=float)
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            e = np.zeros_like(x)
            e[i] = eps
            plus, minus = list(fresh_args(case)), list(fresh_args(case))
            plus[k], minus[k] = x + e, x - e
            g[i] = (scalar(case, tuple(plus)) - scalar(case, tuple(minus))) / (2 * eps)
        out.append(g)
    return out[0] if isinstance(case.argnums, int) else tuple(out)


def check(case: Case) -> None:
    """All of a case's checks, in order: the plain value; s2s.value_and_grad's value equals it and
    leaves the plain function's value unchanged; its gradient equals the author's backward (or,
    where `wrong`, central differences, which the author's must miss); jit(grad) equals grad; jvp
    along a random tangent equals grad's inner product with it; vmap(grad) equals grad per example."""
    plain = scalar(case, fresh_args(case))
    value, got = s2s.value_and_grad(case.fn, argnums=case.argnums)(*fresh_args(case))
    assert float(value) == plain or np.isclose(float(value), plain, rtol=1e-13, atol=0), (value, plain)
    assert scalar(case, fresh_args(case)) == plain, "the plain function's value changed after s2s ran it"
    if case.wrong is None:
        author = case.author_grad(*fresh_args(case))
        assert_close(got, author, case.rtol, case.atol, f"{case.id}: s2s.grad against the author's backward")
    else:
        fd = fd_gradient(case)
        assert_close(got, fd, 1e-5, 1e-6, f"{case.id}: s2s.grad against central differences")
        try:
            author = case.author_grad(*fresh_args(case))
        except Exception:  # an author's backward that crashes is wrong too
            author = None
        assert author is None or not close(author, fd, 1e-5, 1e-6), (
            f"{case.id}: marked wrong ({case.wrong}) but the author's backward matches central differences")
    jitted = s2s.jit(s2s.grad(case.fn, argnums=case.argnums), static_argnums=case.static_argnums)
    assert_close(jitted(*fresh_args(case)), got, 1e-12, 1e-12, f"{case.id}: jit(grad) against grad")
    check_jvp(case, got, plain)
    check_vmap_grad(case, got)


def _tight(case: Case) -> float:
    """The relative tolerance of s2s against itself (jvp and vmap against grad): rounding only, wider
    where the case computes partly in float32 (its `rtol` says so)."""
    return 1e-9 if case.rtol <= 1e-6 else case.rtol * 1e-2


def _nums(case: Case) -> tuple[int, ...]:
    return (case.argnums,) if isinstance(case.argnums, int) else tuple(case.argnums)


def check_jvp(case: Case, got, plain: float) -> None:
    """`s2s.jvp` of the case's function in its differentiated arguments (the others bound by
    keyword, as constants), along a seeded random tangent: the primal is the plain value and the
    tangent is the gradient's inner product with it."""
    nums, args = _nums(case), fresh_args(case)
    names = list(inspect.signature(case.fn).parameters)
    fixed = {names[k]: args[k] for k in range(len(args)) if k not in nums}
    fn = functools.partial(case.fn, **fixed) if fixed else case.fn
    rng = np.random.default_rng(45)
    tangents = tuple(rng.normal(size=np.shape(args[k])) for k in nums)
    value, tangent = s2s.jvp(fn, tuple(args[k] for k in nums), tangents)
    assert np.isclose(float(value), plain, rtol=1e-12, atol=0), (f"{case.id}: jvp's primal", value, plain)
    grads = (got,) if isinstance(case.argnums, int) else got
    terms = [np.asarray(g, dtype=float) * t for g, t in zip(grads, tangents)]
    want = sum(float(np.sum(x)) for x in terms)
    scale = sum(float(np.sum(np.abs(x))) for x in terms)
    assert abs(float(tangent) - want) <= _tight(case) * scale + 1e-12, (
        f"{case.id}: jvp's tangent {float(tangent)!r} against grad . t {want!r}")


def check_vmap_grad(case: Case, got) -> None:
    """`s2s.vmap(s2s.grad(...))` over two examples of the first differentiated argument (the case's
    own and one scaled entry by entry by a seeded factor in [0.9, 1.1], which keeps every sign),
    the other arguments shared: each example's row equals `s2s.grad` of that example alone."""
    k0 = _nums(case)[0]
    first = fresh_args(case)[k0]
    second = first * np.random.default_rng(45).uniform(0.9, 1.1, size=np.shape(first))

    def at(value):
        args = list(fresh_args(case))
        args[k0] = value
        return args

    in_axes = tuple(0 if k == k0 else None for k in range(len(case.args)))
    batched = s2s.vmap(s2s.grad(case.fn, argnums=case.argnums), in_axes=in_axes)(*at(np.stack([first, second])))
    loop = (got, s2s.grad(case.fn, argnums=case.argnums)(*at(second)))
    rows = leaves(batched)
    for i, want in enumerate(loop):
        assert_close([r[i] for r in rows], want, _tight(case), 1e-12, f"{case.id}: vmap(grad), example {i}, against grad")


def failure_text(exc: BaseException) -> str:
    """How a refusal or crash reads: the exception's type, then its message."""
    return f"{type(exc).__name__}: {exc}"


@contextlib.contextmanager
def expect_refusal(case: Case):
    """Around a refused case's checks: the error must still happen and still say what `refused`
    records (a substring of `failure_text`)."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as exc:  # the recorded refusal or crash
        text = failure_text(exc)
        if case.refused not in text:
            raise AssertionError(f"{case.id}: recorded refusal {case.refused!r}, now {text!r}") from exc
        return
    raise AssertionError(f"{case.id}: recorded as refused ({case.refused!r}) but every check passes now: "
                         "drop refused= and recount")
