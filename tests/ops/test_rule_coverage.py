"""The derivative table is complete: every differentiable primitive has a reverse-mode and a
forward-mode rule for each argument a derivative can flow through, and names a real function."""
import numpy as np
import pytest
import rule_table_funcs as RT_FUNCS

import s2s  # noqa: F401  (registers the rules)
from s2s import runtime
from s2s.compiler.primitives import registry
from s2s.test_util import check_grads

PRIMS = sorted(registry.PRIMS)


@pytest.mark.parametrize("name", PRIMS)
def test_every_differentiable_argument_has_both_rules(name):
    p = registry.PRIMS[name]
    if p.nondiff:
        return
    if p.source is not None:  # a composite: s2s transforms its source instead
        from s2s.compiler.driver import core_of
        for fn in p.source.values() if isinstance(p.source, dict) else [p.source]:
            core_of(fn)
        return
    for arg in p.params:
        if arg in p.zero_args or arg in p.refused or arg.startswith("*"):
            continue
        assert arg in p.vjp, f"{name}: no reverse-mode rule for `{arg}` (add one, or declare it with zero())"
        assert arg in p.jvp or arg in p.linear_in, f"{name}: no forward-mode rule for `{arg}`"


@pytest.mark.parametrize("name", PRIMS)
def test_every_primitive_names_a_real_function(name):
    module, _, rest = name.partition(".")
    if module == "xp":
        obj = np
        for part in rest.split("."):
            obj = getattr(obj, part)
        assert callable(obj)
    elif module == "rt":
        assert callable(getattr(runtime, rest))


def test_every_numpy_primitive_is_in_s2s_numpy():
    import s2s.numpy as jnp
    from s2s.base import record

    for name in PRIMS:
        if name.startswith("xp.") and "." not in name[3:]:
            op = getattr(jnp, name[3:])
            if isinstance(op, type):  # dtypes (np.float32 as a cast) are NumPy's own
                assert op is getattr(np, name[3:])
                continue
            assert op._np is getattr(np, name[3:]) and record.of(op).prim == name


def _helpers_in_rules():
    import gast

    names = set()
    for p in registry.PRIMS.values():
        for rule in list(p.vjp.values()) + list(p.jvp.values()):
            for node in gast.walk(gast.parse(rule, mode="eval")):
                if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and node.value.id == "rt":
                    names.add(node.attr)
    return sorted(names)


@pytest.mark.parametrize("helper", _helpers_in_rules())
def test_every_runtime_helper_in_a_rule_can_be_differentiated(helper):
    """A helper that appears in derivative code is a primitive with rules, or s2s can transform its
    source (so derivatives of derivatives work)."""
    from s2s.compiler.driver import core_of

    if "rt." + helper not in registry.PRIMS:
        core_of(getattr(runtime, helper))


MATRIX_INPUT = {"op_amax", "op_amin", "op_prod", "op_var", "op_std", "op_norm", "op_ravel", "op_squeeze",
                "op_swapaxes", "op_moveaxis", "op_flip", "op_roll", "op_tile", "op_repeat", "op_triu",
                "op_tril", "op_broadcast_to"}
POSITIVE_INPUT = {"op_log2", "op_log10", "op_power", "op_cbrt", "op_reciprocal"}
OP_NAMES = sorted(n for n in dir(RT_FUNCS) if n.startswith("op_"))


def make_args(name, rng):
    f = getattr(RT_FUNCS, name)
    shape = (3, 3) if name == "op_trace" else (3, 4) if name in MATRIX_INPUT else (4,)
    if name in POSITIVE_INPUT:
        return tuple(rng.uniform(0.4, 1.5, shape) for _ in range(f.__code__.co_argcount))
    return tuple(rng.uniform(0.3, 0.9, shape) * rng.choice([-1.0, 1.0], shape)
                 for _ in range(f.__code__.co_argcount))


@pytest.mark.parametrize("name", OP_NAMES)
def test_rule_table_function_matches_finite_differences(name):
    """Each function of the rule table in a scalar loss, order 2, both modes."""
    check_grads(getattr(RT_FUNCS, name), make_args(name, np.random.default_rng(len(name))), order=2,
                modes=("fwd", "rev"))
