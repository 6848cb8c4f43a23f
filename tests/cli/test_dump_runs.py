"""Every transform's dump imports and runs (issue 43): for each transform `python -m s2s dump`
offers, alone and stacked, and a function with a loop, an if, a call of a helper function and an
in-place store, the dump is written to a file and imported by a fresh Python process in which s2s
has compiled nothing; what its transformed function returns is compared with what the transform
returns, and that with central differences (derivatives) or the plain function (the rest)."""
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
from s2s import cli

TARGETS = ("loop_sum", "branch", "calls_helper", "store")
SINGLE = [[t] for t in cli.TRANSFORMS]
STACKED = [["grad", "vmap"], ["grad", "jit"], ["jit", "grad"], ["vmap", "jit"], ["jit", "vmap"], ["jacrev", "vmap"],
           ["jacfwd", "vmap"], ["value_and_grad", "vmap"], ["hessian", "vmap"], ["jit", "hessian"], ["grad", "trace"]]
# vmap of hessian's forward-over-reverse appends to its tape in a loop that differs per example: an S2SError
REFUSED = {("store", ("hessian", "vmap"))}
CASES = [(name, tuple(stack)) for name in TARGETS for stack in SINGLE + STACKED if (name, tuple(stack)) not in REFUSED]

X1 = np.array([0.7, -1.3, 0.4, 1.1])  # sum > 0: branch's first branch
X2 = np.array([-0.8, 0.5, -1.2, -0.3])  # sum < 0: its second
BATCH = np.stack([X1, X2, 0.5 * X1])
TANGENT = np.array([0.3, -0.2, 0.5, 0.1])

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
for key, (path, kind, entries, inputs) in cases.items():
    try:
        spec = importlib.util.spec_from_file_location("dumped_" + key, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fns = [getattr(module, e) for e in entries]
        out = []
        for x in inputs:
            if kind == "vjp":
                value, saved = fns[0](x)
                out.append((value, fns[1](saved, np.ones_like(value))[0]))
            elif kind == "jvp":
                out.append(fns[0](x, TANGENT))
            elif kind == "trace":
                out.append(fns[0](Node, x, Node(x, None, (), {}, (), ()))[0])
            else:
                out.append(fns[0](x))
        results[key] = out
    except Exception:
        results[key] = traceback.format_exc()
compiled = sorted(k for k in linecache.cache if k.startswith("<s2s:"))  # what s2s compiled here
pickle.dump((results, compiled), open("results.pkl", "wb"))
'''.replace("TANGENT", repr(TANGENT.tolist()))


def case_id(name, stack):
    return f"{name}-{'-'.join(stack)}"


def kind(stack) -> str:
    """How the dump's functions are called: vjp's sweeps, jvp's primals and tangents, trace's
    node maker, or one function of the (batched) input."""
    return "trace" if stack[-1] == "trace" else stack[0] if stack[0] in ("vjp", "jvp") else "call"


def inputs(stack):
    return [BATCH] if "vmap" in stack else [X1, X2]


@pytest.fixture(scope="module")
def dumped(tmp_path_factory):
    """Every case's dump, written by the command line (in this process, as `python -m s2s dump`
    runs it) and run by one fresh process: {case id: [its results per input] or a traceback}."""
    here = tmp_path_factory.mktemp("dumps")
    cases, texts = {}, {}
    saved_path = list(sys.path)
    try:
        for name, stack in CASES:
            out = io.StringIO()
            argv = ["dump", f"{SUPPORT / 'dump_targets.py'}:{name}"] + [a for t in stack for a in ("--transform", t)]
            with redirect_stdout(out):
                status = cli.main(argv)
            key = case_id(name, stack)
            assert status == 0, f"{key}: exit status {status}"
            text = texts[key] = out.getvalue()
            entries = re.findall(r"`(\w+)\(", re.search(r"^The transformed functions?: (.*)$", text, re.M).group(1))
            (here / f"{key}.py").write_text(text)
            cases[key] = (str(here / f"{key}.py"), kind(stack), entries, inputs(stack))
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
        results, modules = pickle.load(f)
    return results, texts, modules


def cd_grad(f, x, h=1e-6):
    e = np.eye(len(x))
    return np.array([(f(x + h * e[i]) - f(x - h * e[i])) / (2 * h) for i in range(len(x))])


def cd_hessian(f, x, h=1e-4):
    e = np.eye(len(x))
    return np.array([[(f(x + h * (e[i] + e[j])) - f(x + h * (e[i] - e[j])) - f(x - h * (e[i] - e[j]))
                       + f(x - h * (e[i] + e[j]))) / (4 * h * h) for j in range(len(x))] for i in range(len(x))])


def independent(f, stack, x):
    """What the stack computes at `x`, without s2s: central differences or the function itself."""
    math = [t for t in stack if t not in ("jit", "trace", "vmap")]
    if "vmap" in stack:
        per = [independent(f, math, row) for row in x]
        return tuple(np.stack(p) for p in zip(*per, strict=True)) if isinstance(per[0], tuple) else np.stack(per)
    op = math[0] if math else "value"
    if op == "value":
        return f(x)
    if op in ("grad", "jacfwd", "jacrev", "vjp"):
        g = cd_grad(f, x)
        return (f(x), g) if op == "vjp" else g
    if op == "value_and_grad":
        return f(x), cd_grad(f, x)
    if op == "jvp":
        h = 1e-6
        return f(x), (f(x + h * TANGENT) - f(x - h * TANGENT)) / (2 * h)
    assert op == "hessian", op
    return cd_hessian(f, x)


def transform(f, stack, x):
    """What s2s's transforms compute at `x` (applied in order, as the command line applies them)."""
    if stack[0] == "vjp":
        value, back = s2s.vjp(f, x)
        return value, back(np.ones_like(value))[0]
    if stack[0] == "jvp":
        return s2s.jvp(f, (x,), (TANGENT,))
    for t in stack:
        if t != "trace":  # the trace's value is the value of the function it traces
            f = getattr(s2s, t)(f)
    return f(x)


def assert_close(got, want, rtol, atol, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for u, v in zip(got, want, strict=True):
            assert_close(u, v, rtol, atol, what)
        return
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol, err_msg=what)


def test_every_transform_the_command_line_offers_is_run():
    assert {s[0] for s in SINGLE} == set(cli.TRANSFORMS)
    assert len(CASES) == len(TARGETS) * (len(SINGLE) + len(STACKED)) - len(REFUSED)


@pytest.mark.parametrize("name, stack", CASES, ids=[case_id(n, s) for n, s in CASES])
def test_dump_imports_and_runs_and_matches_the_transform(dumped, name, stack):
    results, texts, _ = dumped
    key = case_id(name, stack)
    got = results[key]
    assert not isinstance(got, str), f"the dump of {key} failed in a fresh process:\n{got}\n{texts[key]}"
    f = getattr(dump_targets, name)
    for x, value in zip(inputs(stack), got, strict=True):
        want = transform(f, stack, x)
        assert_close(value, want, 1e-10, 1e-12, f"{key}: the dump against the transform")
        assert_close(want, independent(f, stack, x), 1e-5, 1e-6, f"{key}: the transform against central differences")


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
        argv = ["dump", f"{SUPPORT / 'dump_targets.py'}:{name}"] + [a for t in stack for a in ("--transform", t)]
        saved = list(sys.path)
        try:
            with redirect_stdout(io.StringIO()), pytest.MonkeyPatch.context() as mp:
                mp.setattr(sys, "stderr", err)
                assert cli.main(argv) == 2
        finally:
            sys.path[:] = saved
        assert err.getvalue().startswith("s2s: error: ") and len(err.getvalue().splitlines()) == 1
