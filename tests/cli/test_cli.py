"""Tests for ``python -m s2s dump``: target errors exit 2 with one line on stderr."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from paths import ROOT

from s2s.api import cli
from s2s.errors import shown_path

# one worker runs the file (--dist loadgroup), so each module fixture (the cases run in one process,
# the dumps of two processes) is computed once
pytestmark = pytest.mark.xdist_group("test_cli")

_CWD: list[Path] = []


@pytest.fixture(autouse=True, scope="module")
def _cli_cwd(tmp_path_factory):
    """The CLI runs from a directory beside the tests' temporary files, never an ancestor of
    them, so a message's relative path differs from its absolute one on every machine."""
    _CWD[:] = [tmp_path_factory.mktemp("cwd")]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "s2s", *args],
        cwd=_CWD[0],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def shown_by_cli(path: Path) -> str:
    """`path` as s2s prints it in the CLI's process (s2s's own rule, from that process's working
    directory), wherever the checkout and the temporary directory are."""
    here = os.getcwd()
    os.chdir(_CWD[0])
    try:
        return shown_path(str(path))
    finally:
        os.chdir(here)


@pytest.fixture
def target_file(tmp_path):
    path = tmp_path / "cli_target_mod.py"
    path.write_text(
        textwrap.dedent(
            """\
            import numpy as np


            def f(x):
                return np.sum(np.sin(x))


            not_a_function = 3
            """
        )
    )
    return path


@pytest.fixture
def in_process(monkeypatch):
    """Undo what loading a target in this process does to ``sys.path`` and ``sys.modules``."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    for name in ("cli_target_mod", "_s2s_target_cli_target_mod"):
        sys.modules.pop(name, None)


def assert_one_line_error(proc, *fragments):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("s2s: error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert proc.stdout == ""


BAD_TARGETS = ["just_a_name", ":f", "mod:", "mod:not-an-identifier"]

# `python -m s2s ARGS...` for many ARGS in one fresh process: s2s's __main__ run as `-m` runs it
# (runpy, sys.argv set), each with its own stdout and stderr, its exit status from SystemExit and a
# traceback printed as the interpreter prints one (status 1); printed as JSON. One process start
# instead of one per case below (each start imports NumPy and s2s: about a second of CPU).
_RUN_MANY = """
import contextlib, io, json, runpy, sys, traceback
results = []
for argv in json.loads(sys.argv[1]):
    out, err, status = io.StringIO(), io.StringIO(), 0
    sys.argv = ["s2s", *argv]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_module("s2s", run_name="__main__", alter_sys=True)
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
    results.append((status, out.getvalue(), err.getvalue()))
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """{case: (completed `python -m s2s` run, the files it names)} for the target and usage errors
    below, all run by one fresh process (_RUN_MANY), from the CLI's directory as run_cli runs."""
    tmp = tmp_path_factory.mktemp("cli_cases")
    target = tmp / "cli_target_mod.py"
    target.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x))\n\n\nnot_a_function = 3\n")
    (tmp / "broken_mod.py").write_text("raise RuntimeError('boom')\n")
    (tmp / "no_funcs_mod.py").write_text("x = 1\n")
    paths = {"missing": tmp / "nope.py", "target": target, "broken": tmp / "broken_mod.py",
             "no_funcs": tmp / "no_funcs_mod.py"}
    cases = {
        "missing_file": ["dump", f"{paths['missing']}:f"],
        "missing_function": ["dump", f"{target}:g"],
        "not_callable": ["dump", f"{target}:not_a_function"],
        "missing_module": ["dump", "no_such_module_for_s2s_cli:f"],
        **{f"bad_target {t}": ["dump", t] for t in BAD_TARGETS},
        "fails_to_import": ["dump", f"{paths['broken']}:f"],
        "unknown_transform": ["dump", f"{target}:f", "--transform", "integrate"],
        "argnums_for_jit": ["dump", f"{target}:f", "--transform", "jit", "--argnums", "0"],
        "bad_argnums": ["dump", f"{target}:f", "--argnums", "x"],
        "no_functions": ["dump", str(paths["no_funcs"])],
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", _RUN_MANY, json.dumps(list(cases.values()))], cwd=_CWD[0],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return {name: (subprocess.CompletedProcess(argv, *result), paths)
            for (name, argv), result in zip(cases.items(), json.loads(proc.stdout))}


def test_missing_file(ran):
    proc, paths = ran["missing_file"]
    assert_one_line_error(proc, "no such file", str(paths["missing"]))


def test_missing_function(ran):
    assert_one_line_error(ran["missing_function"][0], "no function 'g'")


def test_target_that_is_not_callable(ran):
    assert_one_line_error(ran["not_callable"][0], "not a function")


def test_missing_module(ran):
    assert_one_line_error(ran["missing_module"][0], "no module named")


@pytest.mark.parametrize("target", BAD_TARGETS)
def test_bad_target_syntax(ran, target):
    assert_one_line_error(ran[f"bad_target {target}"][0], "bad target")


def test_file_that_fails_to_import(ran):
    assert_one_line_error(ran["fails_to_import"][0], "RuntimeError", "boom")


def test_unknown_transform_is_a_usage_error(ran):
    proc = ran["unknown_transform"][0]
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_argnums_rejected_for_jit(ran):
    proc = ran["argnums_for_jit"][0]
    assert proc.returncode == 2
    assert "--argnums" in proc.stderr


def test_bad_argnums(ran):
    proc = ran["bad_argnums"][0]
    assert proc.returncode == 2
    assert "--argnums" in proc.stderr


def test_no_command_is_a_usage_error():
    assert run_cli().returncode == 2  # (a process of its own: the module run as `python -m s2s`)


def test_argnums_parsing():
    assert cli._argnums("1") == 1
    assert cli._argnums("0,2") == (0, 2)


def test_dump_prints_generated_source(target_file):
    proc = run_cli("dump", f"{target_file}:f", "--transform", "grad")
    assert proc.returncode == 0, proc.stderr
    assert "def " in proc.stdout
    assert "\x1b[" not in proc.stdout  # no colour when stdout is not a terminal


def test_dump_by_module_name(target_file, in_process, monkeypatch, capsys):
    monkeypatch.chdir(target_file.parent)
    assert (
        cli.main(["dump", "cli_target_mod:f", "--transform", "grad", "--argnums", "0"])
        == 0
    )
    assert "def " in capsys.readouterr().out


def test_s2s_error_is_one_line(tmp_path):
    path = tmp_path / "cli_bad_mod.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    try:\n        return x\n    finally:\n        pass\n")
    proc = run_cli("dump", f"{path}:f")
    shown = shown_by_cli(path)
    assert not os.path.isabs(shown) and str(path) not in shown  # relative, from beside the file
    assert_one_line_error(proc, shown + ":6", "try")  # (the return inside a try that has a finally block)


DUMPED = ["grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "jit"]

# Each fresh process dumps every transform in DUMPED, in order, as `python -m s2s dump` would one at
# a time (cli.main; test_dump_prints_generated_source runs the module itself), and prints them as
# JSON: two processes (two hash seeds) instead of two per transform.
_DUMP_ALL = """
import contextlib, io, json, sys
from s2s.api import cli
out = {}
for transform in sys.argv[2:]:
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = cli.main(["dump", sys.argv[1] + ":f", "--transform", transform])
    out[transform] = (status, text.getvalue())
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def dumped_twice(tmp_path_factory):
    """{transform: (exit status, dump)} from each of two fresh processes."""
    path = tmp_path_factory.mktemp("dumped") / "cli_target_mod.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    runs = []
    for seed in ("0", "12345"):
        proc = subprocess.run([sys.executable, "-c", _DUMP_ALL, str(path), *DUMPED], cwd=_CWD[0],
                              env={**env, "PYTHONHASHSEED": seed}, capture_output=True, text=True, timeout=300,
                              check=False)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout))
    return runs


@pytest.mark.parametrize("transform", DUMPED)
def test_dump_every_transform_is_deterministic(dumped_twice, transform):
    (status, first), (_, second) = (run[transform] for run in dumped_twice)
    assert status == 0
    assert first == second
    assert first.startswith(f"\"\"\"s2s {transform} of f (")  # a module: docstring, imports, functions
    assert "\n# s2s: " in first
    compile(first, "<dump>", "exec")  # the printed source is valid Python


def test_file_without_function_lists_its_functions_with_the_command(tmp_path):
    path = tmp_path / "listed_mod.py"
    path.write_text("import numpy as np\nfrom math import sqrt\n\n\ndef second(x):\n    return x\n\n\n"
                    "def _private(x):\n    return x\n\n\ndef first(x):\n    return np.sin(x)\n\n\nscale = 2.0\n")
    proc = run_cli("dump", str(path), "--transform", "hessian")
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("s2s: error: name the function to dump") and "defines second, first:" in lines[0]
    assert lines[1:] == [f"    python -m s2s dump {path}:{name} --transform hessian" for name in ("second", "first")]
    listed = run_cli(*lines[2].split()[3:])  # the command it prints runs
    assert listed.returncode == 0 and listed.stdout.startswith('"""s2s hessian of first ('), listed.stderr


def test_module_without_function_lists_its_functions(target_file, in_process, monkeypatch, capsys):
    monkeypatch.chdir(target_file.parent)
    assert cli.main(["dump", "cli_target_mod"]) == 2
    err = capsys.readouterr().err
    assert "cli_target_mod defines f:" in err and "    python -m s2s dump cli_target_mod:f" in err


def test_file_without_functions_says_so(ran):
    proc, paths = ran["no_functions"]
    assert_one_line_error(proc, "defines no function to dump", f"{paths['no_funcs']}:FUNC")


def test_the_targets_prints_go_to_stderr_and_its_main_block_does_not_run(tmp_path):
    path = tmp_path / "printing_mod.py"
    path.write_text("import numpy as np\n\nprint('imported')\n\n\ndef f(x):\n    return np.sum(x * x)\n\n\n"
                    "if __name__ == '__main__':\n    print('main block')\n")
    proc = run_cli("dump", f"{path}:f")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('"""s2s grad of f (') and "imported" not in proc.stdout
    assert proc.stderr == "imported\n"
    ns = {"__name__": "printing_dump"}
    exec(compile(proc.stdout, "printing_dump.py", "exec"), ns)
    x = np.array([0.5, -2.0])
    np.testing.assert_array_equal(ns["grad_f"](x), 2 * x)
