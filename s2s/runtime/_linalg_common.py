"""What the linear-algebra helpers (linalg, linalg_norms, batch_linalg) share: a cotangent in its
operand's narrower float dtype, the einsum subscripts parser (explicit per-operand subscripts and
output, its letters), and the matrix product of stacks. Generated code never calls these, so this
module has no export list and `rt` does not see them."""
from __future__ import annotations

import string

import numpy as np

from ..errors import S2SValueError


def own_dtype(v, like):
    """`v` in `like`'s dtype where that is a float narrower than v's (a cotangent takes its
    primal's dtype, as in JAX: a float32 operand of a product with a float64 one)."""
    dt = getattr(like, "dtype", None)
    if dt is not None and dt.kind == "f" and dt.itemsize < 8 and getattr(v, "dtype", dt) != dt:
        return v.astype(dt)
    return v


LETTERS = string.ascii_letters


def check_subscripts(spec):
    """Refuse subscripts that are not a string: np.einsum's sublist form with sublists s2s could not
    read when transforming (frontend/numpy_forms.einsum_sublists rewrites the literal ones)."""
    if not isinstance(spec, str):
        raise S2SValueError("s2s differentiates np.einsum's sublist form only where it can tell, when transforming, "
                            "that the call is that form: its first sublist a literal, a local assigned once to "
                            "one, or a global, closure or table entry; write the subscripts as a string instead")


def einsum_parse(subscripts, ops):
    """Explicit per-operand subscripts and output, with '...' replaced by letters."""
    check_subscripts(subscripts)
    spec = subscripts.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    parts = ins.split(",")
    used = set(spec) - set(".,->")
    free = [c for c in LETTERS if c not in used]
    nell = max((np.ndim(o) - len(p.replace("...", "")) for p, o in zip(parts, ops) if "..." in p), default=0)
    ell = "".join(free[:nell])
    full = []
    for p, o in zip(parts, ops):
        if "..." in p:
            k = np.ndim(o) - len(p.replace("...", ""))
            p = p.replace("...", ell[nell - k:] if k else "")
        full.append(p)
    if not arrow:
        counts = {c: "".join(full).count(c) for c in set("".join(full))}
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
    return full, out


def mm(x, y):
    """`x @ y` for stacks of matrices (the operator's rules keep batch axes apart)."""
    return x @ y
