"""Dead-store elimination for arrays updated in place (issue 46, section 2): an array the function
owns alone whose values never reach the differentiated output (an author's own `dW`, accumulated
slice by slice beside the loss) is neither taped nor restored, and when nothing returns it, not
computed either. Checked against central differences and the author's hand-written gradient,
and kept where the store reaches the output through another name."""
import ast
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.compiler.passes import dce
from s2s.compiler.passes.base import Notes


def svm_loss_naive(W, X, y, reg):
    """Multiclass hinge loss with loops, and its hand-written gradient dW."""
    dW = np.zeros(W.shape)
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        correct = scores[y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                continue
            margin = scores[j] - correct + 1.0
            if margin > 0:
                loss += margin
                dW[:, j] += X[i]
                dW[:, y[i]] -= X[i]
    loss /= X.shape[0]
    dW /= X.shape[0]
    loss += reg * np.sum(W * W)
    dW += 2 * reg * W
    return loss, dW


def softmax_loss_naive(W, X, y, reg):
    """Softmax cross-entropy with loops, and its hand-written gradient dW."""
    dW = np.zeros_like(W)
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        scores = scores - np.max(scores)
        p = np.exp(scores) / np.sum(np.exp(scores))
        loss -= np.log(p[y[i]])
        for j in range(W.shape[1]):
            dW[:, j] += (p[j] - (j == y[i])) * X[i]
    loss = loss / X.shape[0] + reg * np.sum(W * W)
    dW = dW / X.shape[0] + 2 * reg * W
    return loss, dW


def svm_loss_only(W, X, y, reg):
    """`svm_loss_naive` that keeps its dW to itself: only the loss leaves."""
    dW = np.zeros(W.shape)
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        correct = scores[y[i]]
        for j in range(W.shape[1]):
            if j == y[i]:
                continue
            margin = scores[j] - correct + 1.0
            if margin > 0:
                loss += margin
                dW[:, j] += X[i]
                dW[:, y[i]] -= X[i]
    loss /= X.shape[0]
    dW /= X.shape[0]
    loss += reg * np.sum(W * W)
    dW += 2 * reg * W
    return loss


def softmax_loss_only(W, X, y, reg):
    dW = np.zeros_like(W)
    loss = 0.0
    for i in range(X.shape[0]):
        scores = X[i].dot(W)
        scores = scores - np.max(scores)
        p = np.exp(scores) / np.sum(np.exp(scores))
        loss -= np.log(p[y[i]])
        for j in range(W.shape[1]):
            dW[:, j] += (p[j] - (j == y[i])) * X[i]
    loss = loss / X.shape[0] + reg * np.sum(W * W)
    dW = dW / X.shape[0] + 2 * reg * W
    return loss


def _data(seed=0, n=6, d=5, c=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(d, c)), rng.normal(size=(n, d)), rng.integers(0, c, n)


def _no_dW_records(src):
    lines = [ln for ln in src.splitlines() if not ln.strip().startswith("#")]
    assert not any("copy_slot(dW" in ln or "append(dW)" in ln for ln in lines), src
    assert not any(ln.strip().startswith("dW[") for ln in lines), src  # neither stored nor restored


@pytest.mark.parametrize("loss_only, naive", [(svm_loss_only, svm_loss_naive),
                                              (softmax_loss_only, softmax_loss_naive)])
@pytest.mark.parametrize("jitted", [False, True])
def test_dead_dW_is_gone(loss_only, naive, jitted):
    W, X, y = _data()
    g = s2s.grad(loss_only)
    g = s2s.jit(g) if jitted else g
    src = s2s.source(g)
    _no_dW_records(src)
    code = [ln for ln in src.splitlines() if not ln.strip().startswith("#")]
    assert not any("dW" in ln for ln in code), src  # dW is not even made
    got = g(W, X, y, 0.1)
    np.testing.assert_allclose(got, naive(W, X, y, 0.1)[1], rtol=1e-9, atol=1e-12)
    num = fd_grad(lambda w: loss_only(w, X, y, 0.1), W)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("naive", [svm_loss_naive, softmax_loss_naive])
def test_aux_dW_returned_not_taped(naive):
    W, X, y = _data(1)
    g = s2s.grad(naive, has_aux=True)
    _no_dW_records(s2s.source(g).split("# ---- backward ----")[-1])
    src = s2s.source(g)
    assert "copy_slot(dW" not in src and "append(dW)" not in src, src
    got, aux = g(W, X, y, 0.1)
    loss, dW = naive(W, X, y, 0.1)
    np.testing.assert_allclose(aux, dW, rtol=1e-12)  # the aux is the author's own dW, computed
    np.testing.assert_allclose(got, dW, rtol=1e-9, atol=1e-12)
    num = fd_grad(lambda w: naive(w, X, y, 0.1)[0], W)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)


def through_copy(x):
    a = np.zeros(3)
    b = a
    a[0] = x * x
    a[1] = np.sin(x)
    return np.sum(b * x)


def through_view(x):
    a = np.zeros((2, 3))
    r = a[0]
    a[0, 1] = x * x
    return np.sum(r) * x


def into_argument(x, out):
    out[0] = x * 3.0
    return x * x


@pytest.mark.parametrize("f", [through_copy])
def test_store_reaching_output_through_another_name_is_refused(f):
    """The frontend refuses a store into an array another name still reads (so no dead-store rule
    can make it silently wrong); the generated-code case is `test_dce_keeps_a_store_seen_through_a_view`."""
    with pytest.raises(s2s.S2SError):
        s2s.grad(f)(0.7)


def test_store_reaching_output_through_a_view_is_seen():
    """A row of an array the function made is a view that the store changes (frontend/view_writes.py
    takes it again): sum(r) * x is x ** 3, whose derivative is 3 x ** 2, nothing dropped."""
    assert s2s.grad(through_view)(0.7) == pytest.approx(3 * 0.7 ** 2, rel=1e-12)
    assert s2s.jit(through_view)(0.7) == pytest.approx(through_view(0.7), rel=1e-14)


def _dce(src):
    body = gast.parse(textwrap.dedent(src)).body[0].body
    kept, _ = dce.dead_code(body, {"x"}, {"notes": Notes()})
    return gast.unparse(gast.Module(body=kept, type_ignores=[])) if hasattr(gast, "unparse") else \
        "\n".join(ast.unparse(gast.gast_to_ast(s)) for s in kept)


def test_dce_drops_a_store_nobody_reads():
    out = _dce("""
        def f(x):
            a = xp.zeros(3)
            r = a[0:2]
            a[0] = x
            t = x * 2.0
            return t
    """)
    assert "a[0]" not in out and "zeros" not in out and "t = x * 2.0" in out


@pytest.mark.parametrize("tail, kept", [("t = xp.sum(r)", "a[0] = x"),  # a view of `a`, read after the store
                                        ("b = a\n    t = xp.sum(b)", "a[0] = x"),  # a copy of the name
                                        ("t = g(a)", "a[0] = x")])  # `a` leaves the function
def test_dce_keeps_a_store_seen_through_a_view(tail, kept):
    out = _dce(f"""
def f(x):
    a = xp.zeros(3)
    r = a[0:2]
    a[0] = x
    {tail}
    return t
""")
    assert kept in out, out


def test_dce_keeps_a_store_into_a_parameter_or_unknown_array():
    for head in ("a = x", "a = xp.asarray(x)", "a = x[0]"):
        out = _dce(f"""
def f(x):
    {head}
    a[0] = 1.0
    t = x * 2.0
    return t
""")
        assert "a[0] = 1.0" in out, out


def test_store_into_an_argument_is_kept():
    """A parameter is never the function's own: its store stays in the generated code."""
    g = s2s.grad(into_argument)
    assert g(1.5, np.zeros(2)) == pytest.approx(3.0)
    code = [ln.strip() for ln in s2s.source(g).splitlines() if not ln.strip().startswith("#")]
    assert any(ln.startswith("out[0] =") for ln in code), code


def _aux_through_call(w):
    loss = np.sum(w * w)
    a = np.zeros(3)
    a[0] = w[1] * 2
    return loss, np.sin(a) * 2.0


@pytest.mark.parametrize("jitted", [False, True])
def test_aux_read_by_other_code_is_computed(jitted):
    w = np.array([0.3, 0.5, 0.7])
    g = s2s.grad(_aux_through_call, has_aux=True)
    got, aux = (s2s.jit(g) if jitted else g)(w)
    np.testing.assert_allclose(got, 2 * w)
    np.testing.assert_allclose(aux, _aux_through_call(w)[1])
