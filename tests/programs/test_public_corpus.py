"""Public NumPy code with hand-written backward passes (tests/corpus, issue 45): s2s's gradient of
each author's forward against the author's own backward (or central differences where the
author's is wrong), jit(grad) against grad, and the plain value unchanged. A case s2s refuses or
crashes on is a strict xfail with its message recorded in the case; a wrong number always fails.
"""
import hashlib
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus"))
import harness  # noqa: E402

CASES = harness.collect()

# What this corpus reports (tests/corpus/README.md, docs/accepted-code.md): the summary test keeps
# the number of cases and the share s2s accepts as floors; raise them when a refusal is fixed.
ACCEPTED_FLOOR = 0.95
CASES_FLOOR = 100


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case):
    if case.refused:
        with harness.expect_refusal(case):
            harness.check(case)
        pytest.xfail(case.refused)
    harness.check(case)


def test_cases_are_uniquely_named_and_float64():
    ids = [c.id for c in CASES]
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    for c in CASES:
        nums = (c.argnums,) if isinstance(c.argnums, int) else c.argnums
        for k in nums:
            assert getattr(c.args[k], "dtype", None) == "float64", (c.id, k)


def _blob_id(path: Path) -> str:
    """The file's git blob id: the SHA-1 git gives the same bytes in the author's repository."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_authors_files_are_unmodified():
    """Every file under <source>/upstream/ is listed in UPSTREAM.sha1 with the blob id it has in
    the author's repository at the commit SOURCE.md records, and still has it; every source
    says where it came from and carries its licence."""
    corpus = Path(harness.CORPUS)
    listed = {}
    for line in (corpus / "UPSTREAM.sha1").read_text().splitlines():
        if line and not line.startswith("#"):
            blob, local, _ = line.split()
            listed[local] = blob
    files = sorted(str(p.relative_to(corpus)) for p in corpus.glob("*/upstream/**/*")
                   if p.is_file() and "__pycache__" not in p.parts)
    assert sorted(listed) == files, (
        "UPSTREAM.sha1 must list exactly the authors' files (git rev-parse <commit>:<path> in their repository): "
        f"unlisted {sorted(set(files) - set(listed))}, missing {sorted(set(listed) - set(files))}")
    changed = [f for f in files if _blob_id(corpus / f) != listed[f]]
    assert not changed, f"the authors' files must stay byte for byte as published: {changed}"
    for source in sorted({c.source for c in CASES}):
        text = (corpus / source / "SOURCE.md").read_text()
        assert re.search(r"[0-9a-f]{40}", text) and "Licen" in text, source
        names = [p.name for p in (corpus / source / "upstream").iterdir()]
        assert any(re.search(r"licen[cs]e|copying|readme", n, re.I) for n in names), f"{source}: no licence file"


def test_readme_table_counts_the_cases():
    """tests/corpus/README.md's sources table: one row per source, with its cases, accepted and
    author-wrong counts as the cases have them, and the total row."""
    rows = {}
    for line in (Path(harness.CORPUS) / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and re.fullmatch(r"\d+", cells[4]):
            rows[cells[0]] = tuple(int(c) for c in cells[4:])
    by_source = defaultdict(list)
    for c in CASES:
        by_source[c.source].append(c)
    want = {s: (len(cs), sum(not c.refused for c in cs), sum(c.wrong is not None for c in cs))
            for s, cs in by_source.items()}
    want["total"] = tuple(sum(w[i] for w in want.values()) for i in range(3))
    assert rows == want, f"README rows (cases, accepted, wrong) {rows}, the cases {want}"


def test_acceptance_ratio_is_at_least_what_we_report():
    accepted = [c for c in CASES if not c.refused]
    assert len(CASES) >= CASES_FLOOR
    assert len(accepted) / max(len(CASES), 1) >= ACCEPTED_FLOOR, (len(accepted), len(CASES))
