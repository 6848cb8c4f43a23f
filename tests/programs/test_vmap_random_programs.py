"""Property test: vmap of the random programs of test_random_programs (loops, branches, while,
item assignment) equals a Python loop over examples, with examples on both sides of the branch."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_random_programs import load, programs

import s2s


@settings(max_examples=25, deadline=None)
@given(src=programs(), seed=st.integers(0, 2**16), shared_y=st.booleans())
def test_random_program_vmap_matches_loop(tmp_path_factory, src, seed, shared_y):
    f = load(src, tmp_path_factory.mktemp("vprogs"))
    rng = np.random.default_rng(seed)
    xs, ys = rng.uniform(-1.0, 1.0, (6, 3)), rng.uniform(-1.0, 1.0, (6, 3))
    if shared_y:
        got = s2s.vmap(f, in_axes=(0, None))(xs, ys[0])
        want = [f(x, ys[0]) for x in xs]
    else:
        got = s2s.vmap(f)(xs, ys)
        want = [f(x, y) for x, y in zip(xs, ys)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
