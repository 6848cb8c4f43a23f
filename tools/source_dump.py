"""Dump the generated source of many transforms, to show that a compiler change leaves the code it
generates byte for byte the same (docs/benchmarks.md, issue 46's constant factors).

    python tools/source_dump.py before.json              # from a checkout of the commit before
    python tools/source_dump.py after.json               # from this one
    python tools/source_dump.py --compare before.json after.json

`s2s.source` of grad, vjp, jvp, jit, jit(grad), vmap, hessian and jacfwd of every corpus function
(tests/support/corpus.py) and of tools/bench/bench_compile.py's three programs at 40 and 200
statements, each with its arguments (a transform that raises is recorded by its exception's
name). The programs are written to one fixed folder (`--programs-dir`), since the generated
source names the file: run both checkouts with the same one. Run it with the checkout's root as
the current directory and `PYTHONPATH` pointing there.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRANSFORMS = ("grad", "vjp", "jvp", "jit", "jit_grad", "vmap", "hessian", "jacfwd")


def source_of(fn, args, kind: str) -> str:
    """The generated source of transform `kind` of `fn`, compiled for `args`."""
    import s2s
    from s2s.api import sources
    try:
        if kind in ("vjp", "jvp"):
            return sources.transformed_source(fn, kind)
        if kind in ("grad", "hessian", "jacfwd"):
            return s2s.source(getattr(s2s, kind)(fn))
        if kind == "vmap":
            args = tuple(np.stack([np.asarray(a)] * 3) for a in args)
        t = s2s.jit(s2s.grad(fn)) if kind == "jit_grad" else getattr(s2s, kind)(fn)
        t(*args)
        return s2s.source(t, *args)
    except Exception as e:  # noqa: BLE001 - what raised is part of what is compared
        return f"ERROR {type(e).__name__}"


def dump(programs_dir: str) -> dict[str, str]:
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tools", "bench"), os.path.join(ROOT, "tests")]
    from bench_compile import arguments, make_program
    from bench_util import load_program
    from support.corpus import CORPUS
    out = {}
    os.makedirs(programs_dir, exist_ok=True)
    for variant in ("straight", "loops", "rebind"):
        for n in (40, 200):
            prog = load_program(make_program(n, variant), programs_dir, f"_dump_{variant}{n}").prog
            for kind in TRANSFORMS:
                out[f"{variant}{n}/{kind}"] = source_of(prog, arguments(), kind)
    for fn, make in CORPUS:
        args = make(np.random.default_rng(0))
        for kind in TRANSFORMS:
            out[f"{fn.__name__}/{kind}"] = source_of(fn, args, kind)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", help="JSON file to write the sources to")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two dumps")
    parser.add_argument("--programs-dir", default=os.path.join(tempfile.gettempdir(), "s2s_source_dump"))
    args = parser.parse_args(argv)
    if args.compare:
        a, b = (json.load(open(p)) for p in args.compare)
        differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        print(f"{len(a)} and {len(b)} sources, {len(differ)} differ" + (f": {', '.join(differ[:20])}" if differ else ""))
        return 1 if differ else 0
    if not args.out:
        parser.error("give a file to write, or --compare")
    warnings.simplefilter("ignore")
    out = dump(args.programs_dir)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
    print(f"{len(out)} sources ({sum(v.startswith('ERROR') for v in out.values())} transforms raised)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
