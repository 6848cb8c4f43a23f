"""Run every example script in this folder, in sorted order, and fail if any of them fails.

    python examples/run_all.py            # every example that works today
    python examples/run_all.py --all      # also the ones waiting for a feature (see PENDING)
    python examples/run_all.py td0 rnn    # just these

Each example runs in its own process (``sys.executable``), prints its results and asserts them
against an independent reference (finite differences or hand-derived formulas); this script
shows each one's output and exits with status 1 if any example failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Examples that need a feature s2s does not have yet, or that hit a known s2s bug; they are
# skipped unless --all is given. Remove a name from this table once its example passes.
PENDING: dict[str, str] = {}  # example -> the missing feature it waits for

# Examples that need an optional extra: run when it is installed, else reported as not run.
NEEDS: dict[str, str] = {"dask_per_example.py": "dask"}  # example -> module it imports

TIMEOUT_S = 600


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode(errors="replace")


def examples() -> list[Path]:
    return sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name and not p.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="run only these examples (file names, .py optional)")
    parser.add_argument("--all", action="store_true", help="also run the examples listed as pending")
    args = parser.parse_args(argv)

    scripts = examples()
    if args.names:
        wanted = {n if n.endswith(".py") else n + ".py" for n in args.names}
        unknown = wanted - {p.name for p in scripts}
        if unknown:
            parser.error(f"no such example: {', '.join(sorted(unknown))}")
        scripts = [p for p in scripts if p.name in wanted]
    elif not args.all:
        scripts = [p for p in scripts if p.name not in PENDING]

    missing = [p.name for p in scripts if p.name in NEEDS and importlib.util.find_spec(NEEDS[p.name]) is None]
    scripts = [p for p in scripts if p.name not in missing]
    failed = []
    for path in scripts:
        print(f"=== {path.name}", flush=True)
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, str(path)], capture_output=True, text=True, timeout=TIMEOUT_S, check=False
            )
            output, returncode = proc.stdout + proc.stderr, proc.returncode
            status = "passed" if returncode == 0 else f"FAILED (exit status {returncode})"
        except subprocess.TimeoutExpired as exc:
            output, returncode = _text(exc.stdout) + _text(exc.stderr), None
            status = f"FAILED (killed after {TIMEOUT_S} s)"
        elapsed = time.perf_counter() - start
        sys.stdout.write(output)
        print(f"--- {path.name}: {status} in {elapsed:.1f} s\n", flush=True)
        if returncode != 0:
            failed.append(path.name)

    skipped = [name for name in PENDING if not args.all and not args.names]
    print(f"{len(scripts) - len(failed)} of {len(scripts)} examples passed.")
    if missing:
        print("NOT RUN (optional extra missing): " + ", ".join(
            f"{n} (needs {NEEDS[n]}: pip install 's2s[{NEEDS[n]}]')" for n in missing))
    if skipped:
        print("Skipped (pending): " + ", ".join(f"{n} ({PENDING[n]})" for n in skipped))
    if failed:
        print("Failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
