"""A module written from source lines into a test's folder and imported: s2s reads a function's
source from its file, so generated cases need one."""
import importlib.util
from pathlib import Path


def module_of(folder: Path, name: str, lines: list[str]):
    """The module `name` of these source lines, written to `folder`/`name`.py and imported."""
    path = folder / f"{name}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
