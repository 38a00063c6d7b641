"""The README and docs/ stay short, linked and true to the tree: the README within 12 KB with its two
commands (the test one is what .ci/run runs) and its table of where each kind of change goes, whose
paths and names exist; every relative link and anchor in the README and docs/ resolves; and every
code snippet a doc shows is run by the test its marker names (tests/readme_snippets.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.readme_snippets import snippet

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_BYTES = 12 * 1024
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINKED = [README, *DOCS, ROOT / "clients" / "python" / "README.md"]
CHANGES = ("new store", "new extraction rule", "new API route", "new recall step", "new job")

_FENCE = re.compile(r"^```.*?^```", re.M | re.S)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_MARKER = re.compile(r"<!-- snippet: (\S+) \(run by ([^)\s]+)\) -->")
_CALL = re.compile(r"""snippet\(\s*["']([^"']+)["']\s*,\s*["']([^"']+)["']""")
_CODE = re.compile(r"`([^`\n]+)`")
_FILE = re.compile(r"\.(py|json|yaml|sql|md|toml|cases)$")


def _prose(text: str) -> str:
    """The text without its fenced code blocks (a link inside one is code, not a link)."""
    return _FENCE.sub("", text)


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    out = set()
    for heading in _HEADING.findall(_prose(text)):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def broken_links(path: Path, text: str | None = None) -> list[str]:
    """The relative links of ``path`` (its text, or ``text`` as if it were there) that lead nowhere."""
    out = []
    for target in _LINK.findall(_prose(path.read_text("utf-8") if text is None else text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:: not ours to check
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}: {target}"
        if not resolved.is_relative_to(ROOT):
            out.append(f"{where} leaves the repository (write it as code, not as a link)")
        elif not resolved.exists():
            out.append(f"{where} does not exist")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text("utf-8")):
            out.append(f"{where}: no heading of {resolved.relative_to(ROOT)} has that anchor")
    return out


def test_the_readme_is_at_most_12_kb():
    assert len(README.read_bytes()) <= README_MAX_BYTES


def test_the_readme_keeps_its_two_commands_and_ci_runs_its_test_command():
    block = re.search(r"```bash\n(.*?)```", _section(README.read_text("utf-8"), "Two commands"), re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]
    assert commands == ["local/stack up", "local/stack test"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert commands[1] in ci, ".ci/run must run the README's test command as it is written"


def test_the_readme_says_where_each_kind_of_change_goes():
    table = _section(README.read_text("utf-8"), "Where each kind of change goes")
    rows = {m.group(1).strip(): m.group(2) for m in re.finditer(r"^\| ([^|]+) \| (.+) \|$", table, re.M)}
    assert set(CHANGES) <= rows.keys()
    for change in CHANGES:
        assert len(_CODE.findall(rows[change])) >= 5, f"{change}: name the files to touch"


def _exists(span: str, sources: str) -> bool:
    """A path from the repository's root (``engram/...`` from ``layers/engram/``), a file name
    somewhere in the repository, or a name the code or the template defines."""
    if "/" in span:
        base = ROOT / "layers" / "engram" if span.startswith("engram/") else ROOT
        return (base / span).exists()
    if _FILE.search(span):
        return any(p for p in ROOT.rglob(span) if ".git" not in p.parts and ".run" not in p.parts)
    return re.search(rf"\b{re.escape(span.split('.')[-1])}\b", sources) is not None


def test_every_path_and_name_in_the_where_things_go_table_exists():
    table = _section(README.read_text("utf-8"), "Where each kind of change goes")
    sources = "\n".join(p.read_text("utf-8") for folder in ("layers", "functions", "tests", "clients", "local")
                        for p in (ROOT / folder).rglob("*.py"))
    sources += (ROOT / "template.yaml").read_text("utf-8")
    spans = {span for line in table.splitlines() if line.startswith("| ") for span in _CODE.findall(line)}
    assert spans
    assert sorted(span for span in spans if not _exists(span, sources)) == []


@pytest.mark.parametrize("path", LINKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_an_existing_file_and_heading(path):
    assert broken_links(path) == []


def test_a_broken_link_or_anchor_is_found():
    page = ROOT / "docs" / "api.md"
    text = page.read_text("utf-8") + "\n[gone](nowhere.md) [lost](privacy.md#no-such-heading) [out](../../x.md)\n"
    found = broken_links(page, text)
    assert [f.split(": ", 1)[1] for f in found] == [
        "nowhere.md does not exist", "privacy.md#no-such-heading: no heading of docs/privacy.md has that anchor",
        "../../x.md leaves the repository (write it as code, not as a link)"]


def _markers() -> list[tuple[Path, str, str]]:
    return [(path, name, test) for path in LINKED for name, test in _MARKER.findall(path.read_text("utf-8"))]


def test_the_snippets_are_where_the_tests_read_them():
    shown = {(str(path.relative_to(ROOT)), name) for path, name, _ in _markers()}
    assert {("README.md", "quickstart"), ("clients/python/README.md", "quickstart"),
            ("docs/agents.md", "mcp-config"), ("docs/agents.md", "langgraph")} <= shown


@pytest.mark.parametrize("doc,name,test", [(str(p.relative_to(ROOT)), n, t) for p, n, t in _markers()])
def test_every_snippet_is_run_by_the_test_its_marker_names(doc, name, test):
    code = snippet(doc, name)
    assert code.strip()
    source = (ROOT / test).read_text("utf-8")
    assert f'"{doc}"' in source and f'"{name}"' in source, f"{test} does not read {name} from {doc}"
    block = re.search(rf"<!-- snippet: {re.escape(name)}\b[^>]*-->\s*```([a-z]*)", (ROOT / doc).read_text("utf-8"))
    if block.group(1) == "python":
        compile(code, f"{doc}:{name}", "exec")
    elif block.group(1) == "json":
        json.loads(code)


def test_every_snippet_a_test_reads_is_there():
    calls = {call for test in (ROOT / "tests").rglob("*.py") for call in _CALL.findall(test.read_text("utf-8"))}
    for doc, name in calls:
        assert snippet(doc, name).strip(), f"{doc}: {name}"
