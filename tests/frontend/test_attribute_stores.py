"""Attribute stores on objects that outlive the call (issue 45, section 1): layer code that caches on
`self` during its forward pass (`self.X = X`, `self.Z = Z`, `self.n += 1`). The object holds, after
the call, what the plain function stores (plain NumPy arrays, the primal values; under vmap the
batched values); a read of a stored attribute later in the same function carries its derivative.
grad matches central differences of the plain function, jvp matches grad, jit and vmap match the
plain function (vmap: a loop over the examples). A callee that reads an attribute the function
stores gets the stored value (test_object_state_across_calls.py); an update in place of an array
the object holds is refused with an S2SError."""
import numpy as np
import pytest
from helpers_compare import fd_grad as central  # (central differences)

import s2s
from s2s.errors import S2SError

X = np.array([[0.1, 0.2], [0.3, -0.4]])
W = np.array([[1.0, 2.0], [3.0, -1.0]])
B = np.array([0.5, -0.2])


class Dense:
    def __init__(self):
        self.W = W.copy()
        self.b = B.copy()
        self.n = 0

    def act(self, z):
        return np.tanh(z)

    def forward(self, X):
        self.n_in = X.shape[1]
        self.X = X
        Z = X @ self.W + self.b
        self.Z = Z
        self.n += 1
        return np.sum(self.act(self.Z) * self.X)


class Scaled:
    """Stores into `self.W` and reads it back: the read sees the stored value and its derivative."""

    def __init__(self):
        self.W = W.copy()

    def forward(self, X):
        self.W = self.W * X
        return np.sum(np.sin(self.W))


class Net:
    """Layers that cache, called from a method of another object, in a loop."""

    def __init__(self):
        self.layers = [Dense(), Dense()]

    def forward(self, X):
        out = 0.0
        for layer in self.layers:
            out = out + layer.forward(X)
        return out


def plain(cls, x):
    return cls().forward(x)


@pytest.mark.parametrize("cls", [Dense, Scaled, Net])
def test_grad_matches_central_differences_and_stores_primal_values(cls):
    obj, ref = cls(), cls()
    g = s2s.grad(obj.forward)(X)
    ref.forward(X)
    np.testing.assert_allclose(g, central(lambda x: plain(cls, x), X), rtol=1e-6, atol=1e-8)
    objs = obj.layers if cls is Net else [obj]
    refs = ref.layers if cls is Net else [ref]
    for o, r in zip(objs, refs):
        for name, v in vars(r).items():
            got = getattr(o, name)
            assert type(got) is type(v), name  # a plain NumPy array (or int), never an s2s value
            np.testing.assert_allclose(got, v)


def test_store_happens_once_per_call_in_every_transform():
    d = Dense()
    s2s.grad(d.forward)(X)
    assert d.n == 1
    s2s.value_and_grad(d.forward)(X)
    assert d.n == 2
    s2s.jvp(d.forward, (X,), (np.ones_like(X),))
    assert d.n == 3
    f = s2s.jit(d.forward)
    f(X)
    f(X)
    assert d.n == 5
    assert d.n_in == 2 and d.X is X


def test_jvp_matches_grad_and_value():
    d = Dense()
    v = np.array([[0.3, -1.0], [0.5, 2.0]])
    y, t = s2s.jvp(d.forward, (X,), (v,))
    assert y == pytest.approx(plain(Dense, X))
    assert t == pytest.approx(np.sum(s2s.grad(Dense().forward)(X) * v))


def test_jit_matches_plain_and_sees_new_state():
    d = Dense()
    f = s2s.jit(d.forward)
    assert f(X) == pytest.approx(plain(Dense, X))
    d.W = 2 * W  # state set outside the function is read again
    ref = Dense()
    ref.W = 2 * W
    assert f(X) == pytest.approx(ref.forward(X))
    np.testing.assert_allclose(d.Z, ref.Z)


def test_vmap_stores_the_batched_value():
    d = Dense()
    xs = np.stack([X, 2 * X, X - 0.5])
    out = s2s.vmap(d.forward)(xs)
    np.testing.assert_allclose(out, [plain(Dense, x) for x in xs])
    np.testing.assert_allclose(d.Z, np.stack([x @ W + B for x in xs]))  # the batched value
    assert d.n == 1


def test_vmap_of_grad_matches_loop():
    xs = np.stack([X, 2 * X])
    got = s2s.vmap(s2s.grad(Scaled().forward))(xs)
    np.testing.assert_allclose(got, [s2s.grad(Scaled().forward)(x) for x in xs], rtol=1e-12)


def test_augmented_store_counts_calls():
    class Counter:
        def __init__(self):
            self.n = 0
            self.total = 0.0

        def f(self, x):
            self.n += 1
            self.total += np.sum(x)
            return np.sum(x * x) * self.n

    c = Counter()
    g = s2s.grad(c.f)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [2.0, 4.0])
    g = s2s.grad(c.f)(np.array([1.0, 2.0]))  # the second call reads n == 1 when it starts
    np.testing.assert_allclose(g, [4.0, 8.0])
    assert c.n == 2 and c.total == pytest.approx(6.0)


def test_callee_reading_a_stored_attribute_gets_the_stored_value():
    """The callee reads the value the caller stored, with its derivative (frontend/attr_callees.py);
    tests/frontend/test_object_state_across_calls.py has the full checks."""
    class H:
        def forward(self, x):
            self.x2 = x * 2
            return self.helper()

        def helper(self):
            return np.sum(self.x2 ** 2)

    np.testing.assert_allclose(s2s.grad(H().forward)(np.array([1.0, 2.0])), [8.0, 16.0])


def test_update_in_place_of_a_stored_array_is_refused():
    class U:
        def forward(self, x):
            z = x * 1.0
            self.z = z
            z += 1.0
            return np.sum(z)

    with pytest.raises(S2SError, match="self.z"):
        s2s.grad(U().forward)(np.array([1.0, 2.0]))


def test_store_into_a_local_objects_attribute_stays_refused():
    class P:
        pass

    def f(x):
        p = P()
        p.v = x
        return np.sum(x)

    with pytest.raises(S2SError):
        s2s.grad(f)(np.array([1.0, 2.0]))


class Recurrent:
    """Appends each step's state to lists of the object (an RNN's cache for a hand-written backward)."""

    def __init__(self):
        self.W = np.array([[0.5, -0.3], [0.2, 0.4]])
        self.hs = []
        self.cache = {"mask": []}

    def forward(self, xs):
        h = np.zeros(2)
        for t in range(xs.shape[0]):
            h = np.tanh(self.W @ h + xs[t])
            self.hs.append(h)
            self.cache["mask"].append(h > 0)
        return np.sum(h ** 2)


XS = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.1]])


def test_append_to_an_objects_list_under_grad_jvp_jit():
    ref = Recurrent()
    ref.forward(XS)
    r = Recurrent()
    g = s2s.grad(r.forward)(XS)
    np.testing.assert_allclose(g, central(lambda x: plain(Recurrent, x), XS), rtol=1e-6, atol=1e-9)
    for got, want in ((r.hs, ref.hs), (r.cache["mask"], ref.cache["mask"])):
        assert len(got) == len(want) == 3 and all(type(h) is np.ndarray for h in got)
        np.testing.assert_array_equal(np.array(got), np.array(want))
    r = Recurrent()
    y, t = s2s.jvp(r.forward, (XS,), (np.ones_like(XS),))
    assert y == pytest.approx(plain(Recurrent, XS)) and t == pytest.approx(np.sum(g))
    assert len(r.hs) == 3
    r = Recurrent()
    assert s2s.jit(r.forward)(XS) == pytest.approx(plain(Recurrent, XS))
    np.testing.assert_allclose(np.array(r.hs), np.array(ref.hs))


def test_append_under_vmap_appends_the_batched_values():
    r = Recurrent()
    batch = np.stack([XS, 2 * XS])
    np.testing.assert_allclose(s2s.vmap(r.forward)(batch), [plain(Recurrent, x) for x in batch])
    refs = [Recurrent() for _ in batch]
    for o, x in zip(refs, batch):
        o.forward(x)
    np.testing.assert_allclose(np.array(r.hs), np.stack([np.array(o.hs) for o in refs], axis=1))


def test_append_then_read_of_the_same_list_or_update_in_place_is_refused():
    class A:
        def __init__(self):
            self.hs = []

        def reads(self, x):
            self.hs.append(x)
            return np.sum(self.hs[0] * x)

        def updates(self, x):
            h = x * 1.0
            self.hs.append(h)
            h += 1.0
            return np.sum(h)

    with pytest.raises(S2SError, match="also reads"):
        s2s.grad(A().reads)(np.ones(2))
    with pytest.raises(S2SError, match=r"self\.hs\[-1\]"):
        s2s.grad(A().updates)(np.ones(2))


class Base:
    def __init__(self):
        self.W = np.array([[1.0, 2.0], [3.0, -1.0]])

    def forward(self, x):
        self.x = x
        return np.sin(x @ self.W)


class Child(Base):
    def forward(self, x):
        return np.sum(super().forward(x) ** 2)


def test_super_method_call_under_every_transform():
    c = Child()
    g = s2s.grad(c.forward)(X)
    np.testing.assert_allclose(g, central(lambda x: plain(Child, x), X), rtol=1e-6, atol=1e-8)
    assert c.x is X  # the base method's store
    v = np.array([[0.3, -1.0], [0.5, 2.0]])
    y, t = s2s.jvp(c.forward, (X,), (v,))
    assert y == pytest.approx(plain(Child, X)) and t == pytest.approx(np.sum(g * v))
    assert s2s.jit(Child().forward)(X) == pytest.approx(plain(Child, X))
    xs = np.stack([X, 2 * X])
    np.testing.assert_allclose(s2s.vmap(Child().forward)(xs), [plain(Child, x) for x in xs])
