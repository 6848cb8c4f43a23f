"""Every transform's dump imports and runs (issue 43): for each transform `python -m s2s dump`
offers, alone and stacked, and a function with a loop, an if, a call of a helper function and an
in-place store, the dump is written to a file and imported by a fresh Python process in which s2s
has compiled nothing; what its transformed function returns is compared with what the transform
returns, and that with central differences (derivatives), a loop over the examples (vmap) or the
plain function (the rest). A few more cases give the options (--argnums, --in-axes,
--checkpoint)."""
import io
import os
import pickle
import re
import subprocess
import sys
from contextlib import redirect_stdout

import dump_targets
import numpy as np
import pytest
from paths import ROOT, SUPPORT

import s2s
from s2s.api import cli

TARGETS = ("loop_sum", "branch", "calls_helper", "store")
SINGLE = [(t,) for t in cli.TRANSFORMS]
STACKED = [("grad", "vmap"), ("grad", "jit"), ("jit", "grad"), ("vmap", "jit"), ("jit", "vmap"), ("jacrev", "vmap"),
           ("jacfwd", "vmap"), ("value_and_grad", "vmap"), ("hessian", "vmap"), ("jit", "hessian"), ("grad", "trace")]
# vmap of hessian's forward-over-reverse appends to its tape in a loop that differs per example: an S2SError
REFUSED = {("store", ("hessian", "vmap"))}
# (function, transforms, options): weighted(x, w) has two arguments
WITH_OPTIONS = [
    ("weighted", ("grad",), {"argnums": 1}),
    ("weighted", ("value_and_grad",), {"argnums": (0, 1)}),
    ("weighted", ("jacrev",), {"argnums": 1}),
    ("weighted", ("hessian",), {"argnums": 0}),
    ("weighted", ("vjp",), {}),
    ("weighted", ("jvp",), {}),
    ("weighted", ("vmap",), {"in_axes": (0, None)}),
    ("weighted", ("grad", "vmap"), {"in_axes": (0, None)}),
    ("weighted", ("grad", "vmap"), {"argnums": 1, "in_axes": (None, 0)}),
    ("loop_sum", ("grad",), {"checkpoint": "auto"}),
    ("store", ("vjp",), {"checkpoint": "auto"}),
]
CASES = [(name, stack, {}) for name in TARGETS for stack in SINGLE + STACKED if (name, stack) not in REFUSED]
CASES += WITH_OPTIONS

# one worker writes and runs the dumps once (.ci/run: --dist loadgroup); spread over two, each
# worker computed the module fixture again
pytestmark = pytest.mark.xdist_group("test_dump_runs")

X1 = np.array([0.7, -1.3, 0.4, 1.1])  # sum > 0: branch's first branch
X2 = np.array([-0.8, 0.5, -1.2, -0.3])  # sum < 0: its second
BATCH = np.stack([X1, X2, 0.5 * X1])
W = np.array([0.9, 0.2, -1.5, 0.6])

RUNNER = r'''
"""Import each dump in this fresh process and call its transformed functions."""
import importlib.util
import linecache
import pickle
import traceback

import numpy as np


class Node:
    """A trace node: the value, the function that made it and its parents' nodes."""

    def __init__(self, value, fun, args, kwargs, argnums, parents):
        self.value, self.fun, self.parents = value, fun, parents


cases = pickle.load(open("cases.pkl", "rb"))
results = {}
for key, (path, kind, entries, calls) in cases.items():
    try:
        spec = importlib.util.spec_from_file_location("dumped_" + key.replace("-", "_"), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fns = [getattr(module, e) for e in entries]
        out = []
        for args, tangents in calls:
            if kind == "vjp":
                value, saved = fns[0](*args)
                out.append((value, tuple(c for c in fns[1](saved, np.ones_like(value)) if c is not None)))
            elif kind == "jvp":
                out.append(tuple(fns[0](*args, *tangents)))
            elif kind == "trace":
                out.append(fns[0](Node, *args, *(Node(a, None, (), {}, (), ()) for a in args))[0])
            else:
                out.append(fns[0](*args))
        results[key] = out
    except Exception:
        results[key] = traceback.format_exc()
compiled = sorted(k for k in linecache.cache if k.startswith("<s2s:"))  # what s2s compiled here
pickle.dump((results, compiled), open("results.pkl", "wb"))
'''


def case_id(name, stack, opts) -> str:
    extra = [f"{k}={v}".replace(" ", "") for k, v in sorted(opts.items())]
    return "-".join([name, *stack, *extra])


def cli_options(stack, opts) -> list[str]:
    out = [a for t in stack for a in ("--transform", t)]
    for key, value in sorted(opts.items()):
        text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
        out += ["--" + key.replace("_", "-"), text]
    return out


def kind(stack) -> str:
    """How the dump's functions are called: vjp's sweeps, jvp's primals and tangents, trace's
    node maker, or one function of the arguments."""
    return "trace" if stack[-1] == "trace" else stack[0] if stack[0] in ("vjp", "jvp") else "call"


def calls(name, stack, opts) -> list[tuple]:
    """(arguments, tangents) of each call of the dumped function."""
    if name == "weighted":
        axes = opts.get("in_axes", (0, 0))
        args = (BATCH if axes[0] == 0 else X1, np.stack([W, -W, 2 * W]) if axes[1] == 0 else W) if "vmap" in stack \
            else (X1, W)
        return [(args, (0.5 * X2, np.cos(W)))]
    if "vmap" in stack:
        return [((BATCH,), ())]
    return [((x,), (np.cos(x),)) for x in (X1, X2)]


@pytest.fixture(scope="module")
def dumped(tmp_path_factory):
    """Every case's dump, written by the command line (in this process, as `python -m s2s dump`
    runs it) and run by one fresh process: {case id: [its results per call] or a traceback}."""
    here = tmp_path_factory.mktemp("dumps")
    cases, texts = {}, {}
    saved_path = list(sys.path)
    try:
        for name, stack, opts in CASES:
            out = io.StringIO()
            argv = ["dump", f"{SUPPORT / 'dump_targets.py'}:{name}", *cli_options(stack, opts)]
            with redirect_stdout(out):
                status = cli.main(argv)
            key = case_id(name, stack, opts)
            assert status == 0, f"{key}: exit status {status}"
            text = texts[key] = out.getvalue()
            entries = re.findall(r"`(\w+)\(", re.search(r"^The transformed functions?: (.*)$", text, re.M).group(1))
            (here / f"{key}.py").write_text(text)
            cases[key] = (str(here / f"{key}.py"), kind(stack), entries, calls(name, stack, opts))
    finally:
        sys.path[:] = saved_path
    with open(here / "cases.pkl", "wb") as f:
        pickle.dump(cases, f)
    (here / "runner.py").write_text(RUNNER)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "runner.py"], cwd=here, env=env, capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    with open(here / "results.pkl", "rb") as f:
        results, compiled = pickle.load(f)
    return results, texts, compiled


def cd_grad(f, x, h=1e-6):
    e = np.eye(len(x))
    return np.array([(f(x + h * e[i]) - f(x - h * e[i])) / (2 * h) for i in range(len(x))])


def cd_hessian(f, x, h=1e-4):
    e = np.eye(len(x))
    return np.array([[(f(x + h * (e[i] + e[j])) - f(x + h * (e[i] - e[j])) - f(x - h * (e[i] - e[j]))
                       + f(x - h * (e[i] + e[j]))) / (4 * h * h) for j in range(len(x))] for i in range(len(x))])


def wrt(f, args, k):
    """`f` as a function of its argument `k` alone, the others fixed at `args`."""
    return lambda v: f(*args[:k], v, *args[k + 1:])


def independent(f, stack, args, tangents, opts):
    """What the transforms compute, without s2s: central differences, a loop over the examples,
    or the function itself."""
    math = [t for t in stack if t not in ("jit", "trace")]
    if math and math[-1] == "vmap":
        axes = opts.get("in_axes", 0)
        axes = axes if isinstance(axes, tuple) else (axes,) * len(args)
        size = next(a.shape[0] for a, ax in zip(args, axes, strict=True) if ax == 0)
        per = [independent(f, math[:-1], tuple(a[b] if ax == 0 else a for a, ax in zip(args, axes, strict=True)),
                           tangents, opts) for b in range(size)]
        return tuple(np.stack(p) for p in zip(*per, strict=True)) if isinstance(per[0], tuple) else np.stack(per)
    op = math[0] if math else "value"
    if op == "value":
        return f(*args)
    if op == "jvp":
        h = 1e-6
        step = lambda s: f(*(a + s * h * t for a, t in zip(args, tangents, strict=True)))
        return f(*args), (step(1) - step(-1)) / (2 * h)
    if op == "vjp":
        return f(*args), tuple(cd_grad(wrt(f, args, k), args[k]) for k in range(len(args)))
    argnums = opts.get("argnums", 0)
    if op == "hessian":
        return cd_hessian(wrt(f, args, argnums), args[argnums])
    grads = tuple(cd_grad(wrt(f, args, k), args[k]) for k in (argnums if isinstance(argnums, tuple) else (argnums,)))
    grad = grads if isinstance(argnums, tuple) else grads[0]
    return (f(*args), grad) if op == "value_and_grad" else grad


def transform(f, stack, args, tangents, opts):
    """What s2s's transforms compute (applied in order, as the command line applies them)."""
    if stack[0] == "vjp":
        value, back = s2s.vjp(f, *args, **({"checkpoint": opts["checkpoint"]} if "checkpoint" in opts else {}))
        return value, tuple(back(np.ones_like(value)))
    if stack[0] == "jvp":
        return tuple(s2s.jvp(f, args, tangents))
    for t in stack:
        if t == "vmap":
            f = s2s.vmap(f, in_axes=opts.get("in_axes", 0))
        elif t == "jit":
            f = s2s.jit(f)
        elif t != "trace":  # the trace's value is the value of the function it traces
            f = getattr(s2s, t)(f, **{k: v for k, v in opts.items() if k in ("argnums", "checkpoint")})
    return f(*args)


def assert_close(got, want, rtol, atol, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for u, v in zip(got, want, strict=True):
            assert_close(u, v, rtol, atol, what)
        return
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol, err_msg=what)


def test_every_transform_the_command_line_offers_is_run():
    assert {s[0] for s in SINGLE} == set(cli.TRANSFORMS)
    assert len({case_id(*c) for c in CASES}) == len(CASES) == len(TARGETS) * (len(SINGLE) + len(STACKED)) \
        - len(REFUSED) + len(WITH_OPTIONS)


@pytest.mark.parametrize("name, stack, opts", CASES, ids=[case_id(*c) for c in CASES])
def test_dump_imports_and_runs_and_matches_the_transform(dumped, name, stack, opts):
    results, texts, _ = dumped
    key = case_id(name, stack, opts)
    got = results[key]
    assert not isinstance(got, str), f"the dump of {key} failed in a fresh process:\n{got}\n{texts[key]}"
    defined = re.findall(r"^def (\w+)\(", texts[key], re.M)
    assert len(defined) == len(set(defined)), f"{key}: a function defined twice"
    f = getattr(dump_targets, name)
    for (args, tangents), value in zip(calls(name, stack, opts), got, strict=True):
        want = transform(f, stack, args, tangents, opts)
        assert_close(value, want, 1e-10, 1e-12, f"{key}: the dump against the transform")
        assert_close(want, independent(f, stack, args, tangents, opts), 1e-5, 1e-6,
                     f"{key}: the transform against central differences")


def test_the_fresh_process_compiled_nothing(dumped):
    """The dumps ran as they are: s2s compiled no generated function in the process that ran them
    (compile_source registers each in linecache as `<s2s:name>`)."""
    results, _, compiled = dumped
    assert len(results) == len(CASES)
    assert compiled == []


def test_refused_stacks_are_still_refused():
    """A stack left out of the cases above is refused with a one-line error, not a broken dump."""
    for name, stack in REFUSED:
        err = io.StringIO()
        argv = ["dump", f"{SUPPORT / 'dump_targets.py'}:{name}", *cli_options(stack, {})]
        saved = list(sys.path)
        try:
            with redirect_stdout(io.StringIO()), pytest.MonkeyPatch.context() as mp:
                mp.setattr(sys, "stderr", err)
                assert cli.main(argv) == 2
        finally:
            sys.path[:] = saved
        assert err.getvalue().startswith("s2s: error: ") and len(err.getvalue().splitlines()) == 1
