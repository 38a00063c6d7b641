"""Code blocks of the READMEs and docs/, by name: a block follows a ``<!-- snippet: NAME (run by
TEST) -->`` line. Tests run the blocks themselves, so a doc cannot show code that does not work;
tests/unit/test_docs.py checks that every marked block is read by the test its marker names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def snippet(readme: str, name: str) -> str:
    text = (ROOT / readme).read_text()
    found = re.search(rf"<!-- snippet: {re.escape(name)}\b[^>]*-->\s*```[a-z]*\n(.*?)```", text, re.S)
    assert found, f"no snippet {name!r} in {readme}"
    return found.group(1)


def for_user(code: str, user: str, placeholder: str = '"alice"') -> str:
    """The snippet with its example user replaced by a fresh one (it must name one)."""
    assert placeholder in code, f"the snippet no longer uses {placeholder}"
    return code.replace(placeholder, f'"{user}"')
