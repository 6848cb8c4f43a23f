"""vmap of grad over the operation spec table (tests/op_specs.py): per-example gradients of a
scalar loss of every operation, batched, against a Python loop of grad. Batched derivative code
goes through the derivative helpers' batching rules (and, where the gradient code cannot be
batched, through grad of the summed batched function): both must give each example's gradient."""
import importlib
import sys
import zlib

import numpy as np
import pytest
from op_specs import SPECS

import s2s
from s2s.errors import S2SError

B = 2
# Gaps (strict: a fixed one must leave the list): spec id -> why.
GAPS = {
}
# np.extract of a boolean mask that differs per example: each example selects a different number of
# elements, no stacked result exists (JAX refuses it too), and vmap refuses it. (getitem's x[x > 0] is
# summed: it batches, issue 45 section 7.)
REFUSED = {"extract"}


@pytest.fixture(scope="module")
def losses(tmp_path_factory):
    """A module of `loss_<id>(a0, ...)`: the sum of sin of every output of the spec's operation."""
    lines = ["import numpy as np", "from op_specs import *", ""]
    for sp in SPECS:
        ps = ", ".join(f"a{i}" for i in range(len(sp.draws)))
        out = sp.fn(*sp.args(np.random.default_rng(0)))
        terms = [f"np.sum(np.sin(out[{k}]))" for k in range(len(out))] if isinstance(out, (tuple, list)) \
            else ["np.sum(np.sin(out))"]
        lines += [f"def loss_{sp.id}({ps}):", f"    out = {sp.fn.__name__}({ps})", f"    return {' + '.join(terms)}", ""]
    d = tmp_path_factory.mktemp("losses")
    (d / "spec_losses.py").write_text("\n".join(lines))
    sys.path.insert(0, str(d))
    try:
        yield importlib.import_module("spec_losses")
    finally:
        sys.path.remove(str(d))
        sys.modules.pop("spec_losses", None)


@pytest.mark.parametrize("sp", [pytest.param(s, id=s.id, marks=[pytest.mark.xfail(reason=GAPS[s.id], strict=True)]
                                             if s.id in GAPS else []) for s in SPECS])
def test_vmap_grad_matches_loop(sp, losses):
    loss = getattr(losses, "loss_" + sp.id)
    nums = tuple(range(len(sp.draws)))
    rng = np.random.default_rng(zlib.crc32(sp.id.encode()))
    examples = [sp.args(rng) for _ in range(B)]
    want = [s2s.grad(loss, argnums=nums)(*ex) for ex in examples]
    if sp.id in REFUSED:
        with pytest.raises(S2SError, match="differs per example|different shape"):
            s2s.vmap(s2s.grad(loss, argnums=nums))(*[np.stack([ex[i] for ex in examples]) for i in nums])
        return
    got = s2s.vmap(s2s.grad(loss, argnums=nums))(*[np.stack([ex[i] for ex in examples]) for i in nums])
    for i in nums:
        np.testing.assert_allclose(got[i], np.stack([w[i] for w in want]), rtol=1e-10, atol=1e-10)
