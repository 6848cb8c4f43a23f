"""A function's lines found from its code object (frontend/source_block.py) are `inspect`'s:
on definitions whose block ends where no instruction does (a trailing `pass`, docstring, comment,
`if False:` block, a bracket closed on a line of its own), on every function of s2s's own
modules and of the corpus, and the transforms of such definitions compute the plain function's
derivative."""
import importlib
import inspect
import pkgutil
import textwrap
import types

import gast
import numpy as np
import pytest
from corpus import CORPUS

import s2s
from s2s.compiler.frontend import parse, source_block


def ends_in_pass(x):
    y = np.sin(x) * 2.0
    if y > 0.0:
        y = y * 3.0
    else:
        pass
    return y
    pass


def ends_in_a_docstring(x):
    y = np.cos(x) * x
    return y
    """no instruction: the block still ends here"""


def ends_in_a_comment(x):
    y = np.tanh(x) + x * x
    return y
    # a comment in the body: inspect counts it in the block


def ends_in_dead_code(x):
    y = np.exp(x * 0.5)
    return y
    if False:
        y = y + 1.0


def ends_in_a_bracket(x):
    y = (np.sin(x)
         + x)
    z = (y
)
    return z


def ends_in_a_backslash(x):
    return np.sin(x) + \
        x * x


def one_line(x): return np.sin(x) * x


def _decorated(f):
    return f


@_decorated
def decorated(x):
    def inner(u):
        return np.cos(u) * u
    return inner(x) + x
# a comment after the block, at the definition's indentation


def ends_in_a_nested_def(x):
    y = x * 2.0

    def inner(u):
        return u * y
    return y


CASES_HERE = (ends_in_pass, ends_in_a_docstring, ends_in_a_comment, ends_in_dead_code, ends_in_a_bracket,
              ends_in_a_backslash, one_line, decorated, ends_in_a_nested_def)


def _lines(code):
    """What parse_function reads: the code object's lines where they parse alone, else inspect's."""
    lines, first, untokenized = source_block.source_lines(code)
    if untokenized and parse._parsed(textwrap.dedent("".join(lines))) is None:
        lines, first, untokenized = source_block.source_lines(code, tokenized=True)
    return lines, first


@pytest.mark.parametrize("fn", CASES_HERE, ids=lambda f: f.__name__)
def test_the_lines_are_inspects(fn):
    assert _lines(fn.__code__) == tuple(inspect.getsourcelines(fn.__code__))


def test_which_blocks_are_found_without_tokenizing():
    found = {f.__name__: source_block.source_lines(f.__code__)[2] for f in CASES_HERE}
    assert not found["ends_in_pass"] and not found["ends_in_a_docstring"] and not found["ends_in_a_comment"] \
        and not found["ends_in_dead_code"]
    assert found["one_line"] and found["decorated"] and found["ends_in_a_nested_def"] and found["ends_in_a_backslash"]
    assert found["ends_in_a_bracket"]  # (found, then refused: its lines do not parse alone)
    assert _lines(ends_in_a_bracket.__code__)[0][-1].strip() == "return z"


def _functions(module):
    for obj in vars(module).values():
        if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__:
            yield obj
        elif isinstance(obj, type) and obj.__module__ == module.__name__:
            yield from (v for v in vars(obj).values() if isinstance(v, types.FunctionType))


def test_every_function_of_s2s_and_of_the_corpus():
    modules = [importlib.import_module(m.name) for m in pkgutil.walk_packages(s2s.__path__, "s2s.")
               if not m.name.endswith("__main__")]
    fns = [f for m in modules for f in _functions(m)] + [fn for fn, _ in CORPUS]
    assert len(fns) > 3000
    fast = checked = 0
    for fn in fns:
        try:
            want = inspect.getsourcelines(fn.__code__)
        except OSError:  # (s2s's functions built by exec: then neither finds lines)
            with pytest.raises(OSError):
                source_block.source_lines(fn.__code__)
            continue
        assert _lines(fn.__code__) == tuple(want), fn
        fast += source_block.source_lines(fn.__code__)[2]
        checked += 1
    assert checked > 3000 and fast > checked // 2


@pytest.mark.parametrize("fn", CASES_HERE, ids=lambda f: f.__name__)
def test_grad_is_the_central_difference(fn):
    x, h = 0.37, 1e-6
    want = (fn(x + h) - fn(x - h)) / (2 * h)
    np.testing.assert_allclose(s2s.grad(fn)(x), want, rtol=1e-6, atol=1e-9)
    node = parse.parse_function(fn).node
    assert isinstance(node, gast.FunctionDef) and node.name == fn.__name__
