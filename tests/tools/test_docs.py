"""The README and docs/ say what s2s does now: every code block runs and shows what s2s prints
(tools/docs_check.py; `python tools/docs_check.py --write` regenerates the output blocks), the
README stays a README, links resolve, and the pages agree with the code they describe (the
layering test's layers, the CI command, the benchmark suite's page)."""
import glob
import importlib.util
import os
import re
import shlex
import sys

import pytest
from paths import BENCH, TOOLS
from paths import ROOT as _ROOT

ROOT = str(_ROOT)
sys.path[:0] = [str(TOOLS), str(BENCH)]
import bench  # noqa: E402
import docs_check  # noqa: E402

PAGES = docs_check.pages()
REGEN = "regenerate with `python tools/docs_check.py --write` and review the diff"


def _blocks():
    out = []
    for page in PAGES:
        lines, blocks, regions = docs_check.parse(page)
        out += [pytest.param(page, b, id=b.where) for b in blocks if b.output_of is None]
    return out


def _text(page: str) -> str:
    return open(os.path.join(ROOT, page), encoding="utf-8").read()


@pytest.mark.parametrize("page, block", _blocks())
def test_code_block_runs_and_shows_what_s2s_prints(page, block):
    missing = docs_check.missing_modules(block)
    if missing:  # the block says it needs an optional extra (`<!-- docs: needs dask -->`)
        pytest.skip(f"{block.where} needs {', '.join(missing)}, not installed")
    _, blocks, _ = docs_check.parse(page)
    outputs = {id(b.output_of): b for b in blocks if b.output_of is not None}
    new = docs_check.check_block(block, outputs)
    assert new is None, f"{block.where} shows something other than what s2s prints now ({REGEN}):\n{new}"


@pytest.mark.parametrize("page", [p for p in PAGES if docs_check.parse(p)[2]])
def test_generated_regions_are_current(page):
    lines, _, regions = docs_check.parse(page)
    for region in regions:
        assert docs_check.check_region(lines, region) is None, \
            f"{page}:{region.line}: stale output of `{region.command}`; {REGEN}"


def test_the_readme_is_short_and_links_every_page():
    readme = _text("README.md")
    assert len(readme.split("\n")) <= 250
    for page in PAGES[1:]:
        assert f"]({page})" in readme, f"the README does not link {page}"


@pytest.mark.parametrize("page", PAGES)
def test_no_machine_paths_or_files_outside_the_repository(page):
    text = _text(page)
    assert not re.search(r"(?<![\w.])/(work|home|tmp|root|Users)/", text), f"{page} names a path of a machine"
    here = os.path.dirname(os.path.join(ROOT, page))
    for rel in re.findall(r"(?<![\w.])(?:\.\./)+[\w.-]*", text):  # each relative path stays in the repository
        inside = os.path.commonpath([ROOT, os.path.normpath(os.path.join(here, rel))]) == ROOT
        assert inside, f"{page} names {rel}, outside the repository"


def _anchors(page: str) -> set[str]:
    """GitHub's anchors of a page's headings."""
    out = set()
    for line in _text(page).split("\n"):
        m = re.match(r"#+ (.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


@pytest.mark.parametrize("page", PAGES)
def test_links_resolve(page):
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", _text(page), flags=re.S))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"\w+://", target):
            continue
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        assert os.path.exists(os.path.join(ROOT, dest)), f"{page}: link to a missing file {target}"
        if anchor:
            assert anchor in _anchors(dest), f"{page}: link to a missing heading {target}"


def test_ci_runs_the_readme_test_command():
    readme = _text("README.md")
    block = re.search(r"## Quick start\n\n```sh\n(.*?)```", readme, re.S).group(1).strip().split("\n")
    assert len(block) == 2 and "examples/run_all.py" in block[0]
    ci = _text(".ci/run")
    xdist = shlex.split(re.search(r"^XDIST=\((.*)\)$", ci, re.M).group(1))
    command = next(ln for ln in ci.split("\n") if ln.startswith("python -m pip install"))
    assert command.replace('"${XDIST[@]}"', " ".join(xdist)) == block[1]


def _layering_test():
    """The layering test (tests/architecture/test_layering.py), wherever the tests' folders put it."""
    (path,) = glob.glob(os.path.join(ROOT, "tests", "**", "test_layering.py"), recursive=True)
    spec = importlib.util.spec_from_file_location("_layering_for_docs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_architecture_lists_the_layering_tests_layers():
    text = _text("docs/architecture.md")
    table = text[text.index("| layer | modules |"):]
    rows = []
    for line in table.split("\n")[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == str(len(rows)), f"layer numbers out of order at {line!r}"
        rows.append(re.findall(r"`([\w.]+)`", cells[1]))
    assert rows == _layering_test().LAYERS, \
        "docs/architecture.md's layer table differs from LAYERS in tests/architecture/test_layering.py"


def test_architecture_lists_every_transform_module():
    text = _text("docs/architecture.md")
    mods = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "s2s", "compiler", "transforms", "*.py"))
                  if not p.endswith("__init__.py"))
    assert len(mods) > 5
    for mod in mods:
        assert f"`{mod}`" in text, f"docs/architecture.md does not describe s2s/compiler/transforms/{mod}"


def test_bench_docs_replaces_only_the_run(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text(_text("docs/benchmarks.md"))
    before = page.read_text()
    bench.write_docs("Command: `python tools/bench/bench.py --docs`\n\n| a | b |\n|---|---|\n", str(page))
    after = page.read_text()
    head, tail = before.split(bench.DOCS_BEGIN)[0], before.split(bench.DOCS_END)[1]
    assert after.startswith(head) and after.endswith(bench.DOCS_END + tail)
    assert "python tools/bench/bench.py --docs" in after and "| a | b |" in after
    assert "### Targets" not in after.split(bench.DOCS_END)[0].split(bench.DOCS_BEGIN)[1]


def test_the_benchmarks_page_holds_a_run_with_every_target():
    run = _text("docs/benchmarks.md").split(bench.DOCS_BEGIN)[1].split(bench.DOCS_END)[0]
    for what, _, size, _, limit in bench.TARGETS:
        assert re.search(rf"\| {re.escape(what)} \| {re.escape(size)} \| .* \| ≤ {limit} \|", run), what


def test_checker_reports_and_rewrites_a_stale_block(tmp_path, monkeypatch):
    """The checker can fail: a wrong output block, a block no rule checks, a missing excerpt."""
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text("# Page\n\n```python\nprint(6 * 7)\n```\n\n```text\n41\n```\n\n"
                    "<!-- docs: excerpt of nowhere.py -->\n```python\nx = 1\n```\n\n```yaml\na: 1\n```\n")
    monkeypatch.setattr(docs_check, "ROOT", str(tmp_path))
    failures, stale = docs_check.check_page("docs/page.md")
    assert len(stale) == 1 and "page.md:7" in stale[0] and "42" in stale[0]
    assert any("nowhere.py" in f for f in failures) and any("```yaml" in f for f in failures)
    docs_check.check_page("docs/page.md", write=True)
    assert "```text\n42\n```" in page.read_text()
    assert docs_check.check_page("docs/page.md")[1] == []


def test_a_block_that_needs_a_missing_extra_is_skipped(tmp_path, monkeypatch):
    """`<!-- docs: needs MODULE -->` skips a block (its output block and a `then` after it) where
    MODULE is not installed, and runs it where it is: here a block that would fail if run."""
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text("# Page\n\n<!-- docs: needs s2s_no_such_extra -->\n```python\nimport s2s_no_such_extra\n"
                    "print(1)\n```\n\n```text\n2\n```\n\n<!-- docs: then `print(3)` -->\n```text\n4\n```\n\n"
                    "<!-- docs: needs numpy -->\n```python\nprint(6 * 7)\n```\n\n```text\n41\n```\n")
    monkeypatch.setattr(docs_check, "ROOT", str(tmp_path))
    _, blocks, _ = docs_check.parse("docs/page.md")
    assert [docs_check.missing_modules(b) for b in blocks] == [["s2s_no_such_extra"], [], ["s2s_no_such_extra"], [], []]
    failures, stale = docs_check.check_page("docs/page.md")
    assert failures == [] and len(stale) == 1 and "page.md:23" in stale[0] and "42" in stale[0]


@pytest.mark.parametrize("page", PAGES)
def test_named_helpers_and_files_exist(page):
    """A page's prose names `rt.<helper>`s and files of this repository; a rename that leaves
    the prose behind fails here (output blocks are regenerated, prose is not)."""
    from s2s import runtime
    text = _text(page)
    missing = sorted({n for n in re.findall(r"\brt\.(\w+)", text) if not hasattr(runtime, n)})
    assert not missing, f"{page} names helpers s2s.runtime does not have: {missing}"
    paths = set(re.findall(r"(?<![\w/.~$-])((?:s2s|tests|tools|examples|docs)/[\w/.-]*\w)", text))
    gone = sorted(p for p in paths if not os.path.exists(os.path.join(ROOT, p)))
    assert not gone, f"{page} names files that do not exist: {gone}"
