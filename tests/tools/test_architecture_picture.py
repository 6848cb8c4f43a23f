"""docs/architecture.md's drawings are the ones tools/architecture.py draws from today's imports."""
import importlib.util

import paths

_spec = importlib.util.spec_from_file_location("architecture_tool", paths.ROOT / "tools" / "architecture.py")
arch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(arch)


def test_the_page_shows_the_drawings_of_todays_imports():
    page = (paths.ROOT / "docs" / "architecture.md").read_text()
    assert arch.page_with_drawings(page) == page, \
        "docs/architecture.md's drawings are out of date: run `python tools/architecture.py --write`"


def test_the_drawing_sees_a_dynamic_import(tmp_path):
    """A literal import_module or sys.modules lookup is an arrow, as an import statement is."""
    mod = tmp_path / "m.py"
    mod.write_text('import importlib, sys\nimportlib.import_module("s2s.scipy")\nsys.modules["s2s.runtime"]\n')
    known = {"s2s.scipy": "", "s2s.runtime": "", "s2s.base.m": str(mod)}
    assert arch.imports("s2s.base.m", str(mod), known) == {"s2s.scipy", "s2s.runtime"}


def test_every_module_is_in_a_part_of_the_drawing():
    loose = [m for m in arch.modules() if arch.part_of(m) is None]
    assert sorted(loose) == ["s2s.config", "s2s.errors"]


def test_every_arrow_points_down_the_list_of_parts():
    """The drawing reads top down: each part imports only parts listed after it (so no cycle)."""
    order = [node for node, _, _ in arch.PARTS]
    up = [(a, b) for a, b in arch.part_edges() if order.index(a) > order.index(b)]
    assert up == []
