"""Every function s2s normalizes, and every transform's output once normalized, is in core form."""
import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s.compiler.driver import core_of, jvp_function, split_vjp
from s2s.compiler.ir.validate import CoreFormError, validate

IDS = [fn.__name__ for fn, _ in CORPUS]


@pytest.mark.parametrize("fn, make_args", CORPUS, ids=IDS)
def test_transform_outputs_are_core_form_again(fn, make_args):
    nargs = len(make_args(np.random.default_rng(0)))
    validate(core_of(fn).node)
    outputs = [s2s.grad(fn).compiled, jvp_function(fn, (True,) * nargs), *split_vjp(fn, (True,) * nargs)]
    for out in outputs:
        validate(core_of(out).node)


def not_core(x):
    return x


def test_validator_rejects_nested_expressions():
    import gast

    fn = gast.parse("def f(x):\n    y = x * (x + 1)\n    return y\n").body[0]
    with pytest.raises(CoreFormError, match="expected a name or literal"):
        validate(fn)


def test_validator_rejects_return_in_the_middle():
    import gast

    fn = gast.parse("def f(x):\n    if x:\n        return x\n    return x\n").body[0]
    with pytest.raises(CoreFormError, match="return is not the function's last statement"):
        validate(fn)


NEG = -1.5


def negative_base(x):
    return np.sum(x * NEG ** 2) + np.sum(np.sqrt(1.0 + (-(1.5)) ** 2) * x)


def test_negative_literals_keep_their_precedence_in_generated_code():
    x = np.ones(2)
    np.testing.assert_allclose(s2s.grad(negative_base)(x), 2.25 + np.sqrt(3.25))
