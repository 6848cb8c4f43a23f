"""Command line: ``s2s dump TARGET --transform T`` prints the source s2s generates.

TARGET is ``path/to/file.py:func`` or ``package.module:func``; a file or module without ``:func``
lists its functions, each with the command that dumps it. The file is imported as a module (its
``if __name__ == "__main__":`` block does not run); what it prints while it is imported or
transformed goes to stderr, so stdout holds the dump alone. Problems with the target (no such
file, module or function) and compiler errors about the user's code end the program with status 2
and one line on stderr; a crash inside s2s itself keeps its traceback, so it can be reported.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import inspect
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from ..errors import S2SError
from . import ops_table
from .sources import dump_source, stacked_source

__all__ = ["main"]

TRANSFORMS = (
    "grad",
    "value_and_grad",
    "vjp",
    "jvp",
    "hessian",
    "jacfwd",
    "jacrev",
    "jit",
    "vmap",
    "trace",
)
_NO_ARGNUMS = ("jit", "vmap")


class TargetError(Exception):
    """A target that cannot be loaded; reported as one line, exit status 2."""


def _argnums(text: str) -> int | tuple[int, ...]:
    """Parse ``--argnums``: ``1`` gives an int, ``0,2`` a tuple."""
    try:
        nums = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer or a comma-separated list of integers, got {text!r}"
        ) from None
    return nums[0] if len(nums) == 1 else nums


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="s2s",
        description="Print the Python source that s2s generates for a function.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    dump = commands.add_parser(
        "dump", help="print the generated source of a transformed function"
    )
    dump.add_argument(
        "target", metavar="TARGET", help="path/to/file.py:func or package.module:func"
    )
    dump.add_argument(
        "--transform",
        choices=TRANSFORMS,
        action="append",
        default=None,
        help="transform to apply (default: grad); repeat to stack them, applied in order "
        "(--transform grad --transform vmap is vmap(grad(f)))",
    )
    dump.add_argument("--in-axes", type=_axes, default=0, help="vmap: in_axes, e.g. 0 or 0,None")
    dump.add_argument("--out-axes", type=_axes, default=0, help="vmap: out_axes, e.g. 0 or 1")
    dump.add_argument(
        "--argnums",
        type=_argnums,
        default=None,
        help="argument index or comma-separated indices to differentiate",
    )
    dump.add_argument(
        "--checkpoint",
        type=_checkpoint_option,
        default=None,
        help="grad, value_and_grad, vjp: checkpoint the loops (auto, or a memory budget in bytes)",
    )
    ops = commands.add_parser("ops", help="list every operation s2s recognizes and which rules it has")
    ops.add_argument("--json", action="store_true", help="machine-readable output")
    ops.add_argument("--markdown", action="store_true", help="the coverage table of docs/operations.md")
    return parser


def _ops(as_json: bool, as_markdown: bool) -> str:
    rows = ops_table.operations()
    if as_json:
        return json.dumps({"summary": ops_table.summary(rows), "operations": rows}, indent=1)
    return ops_table.markdown(rows) if as_markdown else ops_table.text(rows)


def _load_file(path: str) -> ModuleType:
    """Import a Python file as a module named after its stem, with its folder on ``sys.path``."""
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {path}")
    path = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem not in sys.modules else f"_s2s_target_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise TargetError(
            f"importing {path} failed: {type(exc).__name__}: {exc}"
        ) from exc
    return module


def _load_module(name: str) -> ModuleType:
    """Import ``package.module``, looking in the current directory first."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (
            name == exc.name or name.startswith(exc.name + ".")
        ):
            raise TargetError(f"no module named {name!r}") from exc
        raise TargetError(f"importing {name!r} failed: {exc}") from exc
    except Exception as exc:
        raise TargetError(
            f"importing {name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc


class NoFunctionNamed(TargetError):
    """A target without ``:func``: the functions its module defines, to pick one from."""

    def __init__(self, where: str, functions: list[str]):
        super().__init__(where)
        self.where = where
        self.functions = functions


def _is_file(where: str) -> bool:
    return where.endswith(".py") or "/" in where or os.sep in where


def _functions_defined(module: ModuleType) -> list[str]:
    """The names of the plain functions `module` defines itself (not those it imports), in the
    order of its source; private ones (`_name`) only when it has no other."""
    found = [(v.__code__.co_firstlineno, n) for n, v in vars(module).items()
             if inspect.isfunction(v) and v.__module__ == module.__name__ and not n.startswith("__")]
    names = [n for _, n in sorted(found)]
    public = [n for n in names if not n.startswith("_")]
    return public or names


def load_target(target: str) -> Callable[..., Any]:
    """The function named by ``file.py:func`` or ``package.module:func``."""
    where, sep, func_name = target.rpartition(":")
    if target.endswith(".py") or (not sep and target and (_is_file(target) or _importable(target))):
        module = _load_file(target) if _is_file(target) else _load_module(target)
        raise NoFunctionNamed(target, _functions_defined(module))
    if not sep or not where or not func_name.isidentifier():
        raise TargetError(
            f"bad target {target!r}: expected path/to/file.py:func or package.module:func"
        )
    module = _load_file(where) if _is_file(where) else _load_module(where)
    func = getattr(module, func_name, None)
    if func is None:
        raise TargetError(f"{where} has no function {func_name!r}")
    if not callable(func):
        raise TargetError(
            f"{where}:{func_name} is a {type(func).__name__}, not a function"
        )
    return func


def _importable(name: str) -> bool:
    """Whether `name` names a module that can be found (without importing it)."""
    if not all(part.isidentifier() for part in name.split(".")):
        return False
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _choices(exc: NoFunctionNamed, argv: Sequence[str]) -> str:
    """What to print for a target without ``:func``: its functions, each with the command that
    dumps it (the user's other options kept)."""
    if not exc.functions:
        return f"s2s: error: {exc.where} defines no function to dump; name one as {exc.where}:FUNC"
    rest = list(argv)
    at = rest.index(exc.where) if exc.where in rest else len(rest)
    lines = [f"s2s: error: name the function to dump, as {exc.where}:FUNC; {exc.where} defines "
             + ", ".join(exc.functions) + ":"]
    for name in exc.functions:
        args = rest[:at] + [f"{exc.where}:{name}"] + rest[at + 1:]
        lines.append("    python -m s2s " + " ".join(shlex.quote(a) for a in args))
    return "\n".join(lines)


def _one_line(message: str) -> str:
    """Fold a multi-line compiler message into one line, dropping caret-only marker lines."""
    lines = [line.strip() for line in message.splitlines()]
    return "; ".join(line for line in lines if line and set(line) - set("^~ "))


def _highlight(text: str) -> str:
    """Colour ``text`` as Python when writing to a terminal and pygments is installed."""
    if not sys.stdout.isatty():
        return text
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return text
    return highlight(text, PythonLexer(), TerminalFormatter())


def _axes(text: str):
    """Parse ``--in-axes``/``--out-axes``: ``0`` or ``None`` gives one axis, ``0,None`` a tuple."""
    def one(part):
        part = part.strip()
        if part == "None":
            return None
        try:
            return int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected integers or None separated by commas, got {text!r}") from None
    parts = tuple(one(p) for p in text.split(","))
    return parts[0] if len(parts) == 1 else parts


def _checkpoint_option(text: str):
    """Parse ``--checkpoint``: ``auto`` or a number of bytes."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected auto or a number of bytes, got {text!r}") from None


def _dump(target: str, transforms: list[str], argnums: int | tuple[int, ...] | None, in_axes=0, out_axes=0,
          checkpoint=None) -> str:
    func = load_target(target)
    try:
        if len(transforms) == 1 and transforms[0] != "vmap":
            return dump_source(func, transforms[0], argnums, checkpoint)
        bad = [t for t in transforms if t in ("vjp", "jvp")]
        if bad:
            raise TargetError(f"--transform {bad[0]} cannot be stacked; use it alone")
        if "trace" in transforms[:-1]:
            raise TargetError("--transform trace comes last: it traces the function the others made")
        return stacked_source(func, transforms, argnums, in_axes, out_axes)
    except S2SError as exc:
        raise TargetError(_one_line(str(exc)) or type(exc).__name__) from exc


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.command == "ops":
        sys.stdout.write(_ops(args.json, args.markdown) + "\n")
        return 0
    transforms = args.transform or ["grad"]
    if args.argnums is not None and all(t in _NO_ARGNUMS for t in transforms):
        parser.error(f"--argnums does not apply to --transform {' '.join(transforms)}")
    if args.checkpoint is not None and transforms not in (["grad"], ["value_and_grad"], ["vjp"]):
        parser.error("--checkpoint applies to --transform grad, value_and_grad or vjp alone")
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the target's prints: stdout holds the dump alone
            text = _dump(args.target, transforms, args.argnums, args.in_axes, args.out_axes, args.checkpoint)
    except NoFunctionNamed as exc:
        print(_choices(exc, argv), file=sys.stderr)
        return 2
    except TargetError as exc:
        print(f"s2s: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    text = _highlight(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
