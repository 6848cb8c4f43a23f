"""Turn a generated core-form function into a running one that later transforms can start from."""
from __future__ import annotations

import numpy as np

from .. import record, runtime
from .codegen import compile_source, to_source


def compile_fn(name: str, node, ns: dict, filename: str, header: str = ""):
    """Print `node`, exec it with `xp` (NumPy for now) and `rt` bound, and attach its record."""
    source = to_source(node, header)
    ns = {"xp": np, "rt": runtime, **ns}
    fn = compile_source(name, source, ns, np)
    record.attach(fn, core=(node, ns, f"<s2s:{name}>"), source=source)
    return fn
