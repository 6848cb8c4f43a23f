"""s2s.config: JAX-like update/read, validation, environment variables."""

import os
import subprocess
import sys

import pytest
from paths import ROOT

import s2s
from s2s import config
from s2s.errors import S2SError


@pytest.fixture(autouse=True)
def restore():
    saved = {name: config.read(name) for name in ("threefry_partitionable", "backend")}
    yield
    for name, value in saved.items():
        config.update(name, value)


def test_defaults_and_update():
    assert s2s.config is config
    assert config.read("threefry_partitionable") is False
    assert config.read("backend") == "numpy"
    config.update("threefry_partitionable", True)
    assert config.read("threefry_partitionable") is True
    config.update("jax_threefry_partitionable", False)  # JAX's spelling works too
    assert config.config.threefry_partitionable is False
    config.update("backend", "NumPy")
    assert config.read("backend") == "numpy"


def test_backend_names_are_validated():
    for name in ("cupy", "dask"):
        config.update("backend", name)
        assert config.read("backend") == name
    with pytest.raises(S2SError, match="'numpy', 'cupy', 'dask'"):
        config.update("backend", "torch")


@pytest.mark.parametrize("value", ["maybe", 2, None, 0.5])
def test_bad_bool(value):
    with pytest.raises(S2SError, match="True or False"):
        config.update("threefry_partitionable", value)


def test_unknown_setting():
    with pytest.raises(S2SError, match="unknown setting 'jax_no_such_flag'"):
        config.update("jax_no_such_flag", True)
    with pytest.raises(S2SError, match="unknown setting"):
        config.read("nope")


def _run(env_extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env_extra}
    code = "import s2s; print(s2s.config.read('backend'), s2s.config.read('threefry_partitionable'))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)


def test_environment_variables():
    out = _run({"S2S_BACKEND": "dask", "S2S_THREEFRY_PARTITIONABLE": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["dask", "True"]
    bad = _run({"S2S_BACKEND": "tpu"})
    assert bad.returncode != 0 and "S2S_BACKEND" in bad.stderr


def test_config_is_a_leaf_module():
    source = (ROOT / "s2s" / "config.py").read_text()
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert all("s2s" not in line and (not line.startswith("from .") or line.startswith("from .errors"))
               for line in imports), imports
