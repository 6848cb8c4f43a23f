"""jit keeps freed memory in the process (s2s/base/heap.py, issue 46 section 2): a gradient's
tape grows the C heap by its whole record every call; with glibc's top pad the next call reuses
those pages instead of faulting them in again from the system. Counted as minor page faults per
call (getrusage), not seconds, in fresh processes (the setting applies once per process): with
the default setting a call of an RNN's jit(grad) takes a fraction of the faults it takes with
`S2S_HEAP_TOP_PAD=0`, and its gradient is the same."""
import os
import subprocess
import sys
import textwrap

import pytest

import s2s
from s2s.errors import S2SValueError

MODULE = '''
import numpy as np


def rnn_loss(w, xs):
    h = np.zeros(xs.shape[1:])
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] * w + h)
    return np.sum(h * h)
'''

RUN = '''
import json, resource, sys
import numpy as np
import s2s
from s2s.base import heap
sys.path.insert(0, sys.argv[1])
import rnn_mod
r = np.random.default_rng(0)
args = (r.normal(size=(64, 128)) * 0.5, r.normal(size=(40, 64, 128)))
g = s2s.jit(s2s.grad(rnn_mod.rnn_loss))
first = g(*args)
for _ in range(2):
    g(*args)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    g(*args)
faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
print(json.dumps({"applied": heap.keep_freed(0), "faults": faults, "grad": first.tolist()}))
'''


def _run(tmp_path, pad: str) -> dict:
    import json
    (tmp_path / "rnn_mod.py").write_text(MODULE)
    # (NumPy's loop, not numba's array loop kernel: no kernel to compile, each step's arrays on the tape)
    env = {k: v for k, v in os.environ.items() if k != "S2S_HEAP_TOP_PAD"} | {"S2S_HEAP_TOP_PAD": pad,
                                                                               "S2S_NO_NUMBA": "1"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(RUN), str(tmp_path)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_fewer_page_faults_per_call(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's mallopt: Linux only")
    kept = _run(tmp_path, str(64 << 20))
    if not kept["applied"]:
        pytest.skip("not glibc: the allocator is left as it is")
    plain = _run(tmp_path, "0")
    assert plain["applied"] is False
    assert kept["grad"] == plain["grad"]  # the same values either way
    # the record is 40 steps x a few 64 x 128 arrays (a few MB): without the pad each call
    # faults most of it in again; with it, the pages stay
    assert plain["faults"] > 500
    assert kept["faults"] < plain["faults"] / 4


@pytest.mark.parametrize("bad", [-1, 2 ** 31, "lots", 1.5])
def test_setting_is_checked(bad):
    with pytest.raises(S2SValueError, match="heap_top_pad"):
        s2s.config.update("heap_top_pad", bad)


def test_setting_reads_back():
    old = s2s.config.read("heap_top_pad")
    try:
        s2s.config.update("heap_top_pad", "1048576")
        assert s2s.config.read("heap_top_pad") == 1 << 20
    finally:
        s2s.config.update("heap_top_pad", old)
