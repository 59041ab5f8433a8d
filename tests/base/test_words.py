"""One wording layer: every message of the core is a code with its values, said in English and French from one
table (`ddpcore.base.words`), for the command line and the page alike; nothing reads English back."""

from __future__ import annotations

import ast
import re

import pytest
from paths import CORE, WEB

from ddpcore.base.words import LANGS, WORDS, Message, placeholders, say

CORE = CORE
SAYERS = {"Message.of": 0, "say": 0, "ReadError": 0, "TraceError": 0, "AnalysisError": 0, "FitError": 0, "Said": 0}
"""Calls that take a message's code first, then its values by name."""
NAMES = {"part.forward", "part.backward", "part.copies"}
"""Parts named as the profiler names them, in both languages (PyTorch's forward and backward), and "copies"."""


def said_in_the_core() -> list[tuple[str, str, set[str]]]:
    """Every literal code the core says, where, and the values it gives it (f-string codes are checked by prefix)."""
    out = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            if name in SAYERS and node.args and isinstance(node.args[0], ast.Constant):
                out.append((path.name, node.args[0].value, {k.arg for k in node.keywords if k.arg}))
    return out


@pytest.mark.parametrize("code", sorted(WORDS))
def test_every_code_has_both_languages_with_the_same_values(code):
    assert set(WORDS[code]) == set(LANGS)
    assert placeholders(code, "en") == placeholders(code, "fr"), code
    words_of_its_own = re.sub(r"\{\w+\}", "", WORDS[code]["en"])
    if any(c.isalpha() for c in words_of_its_own) and code not in NAMES:
        assert WORDS[code]["fr"] != WORDS[code]["en"], "a French text that is the English one"
    filled = say(code, "fr", **dict.fromkeys(placeholders(code), 1))
    assert "{" not in filled


@pytest.mark.parametrize(("where", "code", "given"), said_in_the_core(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_code_the_core_says_exists_and_gets_every_value(where, code, given):
    assert code in WORDS, f"{where} says {code}, which no table holds"
    assert given == placeholders(code), f"{where}: {code} given {sorted(given)}"


def test_a_message_is_said_in_its_language_with_its_values():
    line = Message.of("file.jsonl_line", line=3, reason=Message.of("json.not_a_trace"))
    assert line.text() == "line 3: not a trace (invalid JSON)"
    assert line.text("fr") == "ligne 3 : pas une trace (JSON invalide)"


def test_nothing_in_the_page_reads_english_back():
    web = WEB
    for path in web.rglob("*.py"):
        text = path.read_text()
        assert ".message, " not in text and "in_language" not in text, path.name
