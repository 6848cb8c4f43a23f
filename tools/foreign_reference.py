"""Record what JAX's and autograd's example programs print on the real libraries, in float64.

    python tools/foreign_reference.py [jax|autograd] [program ...]

Runs each program of tests/programs/foreign/<lib>/examples (unmodified) with the real `jax` or
`autograd` installed (`pip install -e '.[peers]'`), through tests/support/foreign_harness.py
(the same stand-ins for MNIST, plotting, absl and dp_accounting that the s2s runs get), each in
a fresh process, and writes tests/programs/foreign/reference/<lib>.json: per program its
printed output, the numbers compared, the library's version and how long it ran. A program the
real library cannot run is recorded with its error. Rerun after changing the harness or the
stand-ins; the tests compare s2s's runs with these files.
"""
from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
import foreign_harness as harness  # noqa: E402

_ONE = """
import json, sys
sys.path.insert(0, {support!r})
import foreign_harness as harness
try:
    out = {{"stdout": harness.run({lib!r}, {name!r}, "real")}}
except Exception as e:
    out = {{"error": f"{{type(e).__name__}}: {{e}}"}}
print("\\0" + json.dumps(out))
"""


def record(lib: str, name: str) -> dict:
    """One program's entry: its output (or error), the numbers compared, version, seconds."""
    code = _ONE.format(support=str(ROOT / "tests" / "support"), lib=lib, name=name)
    start = time.time()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    seconds = round(time.time() - start, 1)
    if "\0" not in proc.stdout:
        raise RuntimeError(f"{lib}/{name} crashed:\n{proc.stderr[-3000:]}")
    entry = json.loads(proc.stdout.rsplit("\0", 1)[1])
    if "stdout" in entry:
        entry["numbers"] = harness.numbers(entry["stdout"], harness.ONLY.get((lib, name)))
    entry["library"] = f"{lib} {importlib.metadata.version(lib)}"
    entry["argv"] = harness.ARGV.get((lib, name), [])
    entry["seconds"] = seconds
    return entry


def main(argv: list[str]) -> None:
    libs = [argv[0]] if argv else ["jax", "autograd"]
    for lib in libs:
        path = harness.REFERENCE / f"{lib}.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        for name in argv[1:] or harness.PROGRAMS[lib]:
            data[name] = record(lib, name)
            status = "error: " + data[name]["error"][:200] if "error" in data[name] else "ok"
            print(f"{lib}/{name}: {status} ({data[name]['seconds']} s)", flush=True)
            path.parent.mkdir(parents=True, exist_ok=True)  # after each program: a long run keeps what it did
            path.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
