"""`python -m s2s dump --transform vmap` and stacked --transform flags."""

from s2s.api import cli


def test_dump_vmap_with_axes(capsys):
    assert cli.main(["dump", "tests/support/vmap_funcs.py:convolve", "--transform", "vmap", "--in-axes", "0,None",
                     "--out-axes", "0"]) == 0
    out = capsys.readouterr().out
    assert "def vmap_convolve(x, w):" in out and "in_axes=(0, None)" in out
    assert "w = rt.vmap_in" not in out  # the unmapped argument is left alone


def test_stacked_transforms_apply_in_order(capsys):
    assert cli.main(["dump", "tests/support/vmap_funcs.py:scaled_norm", "--transform", "grad", "--transform", "vmap",
                     "--in-axes", "0,None"]) == 0
    out = capsys.readouterr().out
    assert "def vmap_grad_scaled_norm(x, w):" in out
    assert not [ln for ln in out.splitlines() if ln.strip().startswith(("for ", "while "))]  # vectorized


def test_bad_axes_is_a_usage_error(capsys):
    try:
        cli.main(["dump", "tests/support/vmap_funcs.py:convolve", "--transform", "vmap", "--in-axes", "x"])
    except SystemExit as e:
        assert e.code == 2
    else:
        raise AssertionError("expected a usage error")
