"""The page's controls agree with the one table of parameters: range, default and label come from ddpcore.base.params
through ddpview.state.urlstate, and index.html is checked against it (a control edited by hand cannot drift)."""

from __future__ import annotations

from html.parser import HTMLParser

from ddpview import i18n
from ddpview.app import SLIDER_MAX
from ddpview.state import FIELD_BY_KEY, FIELDS, ViewState, texts
from paths import WEB

INDEX = WEB / "index.html"


class Controls(HTMLParser):
    """Every element with data-key, with the data-i18n of the label it sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict] = []
        self.label: str | None = None
        self.select: dict | None = None
        self.in_label: list[dict] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "span" and "data-i18n" in a and self.label is None:
            self.label = a["data-i18n"]
        if tag == "label":
            self.label, self.in_label = None, []
        if "data-key" in a:
            entry = {"tag": tag, "label": None, "options": [], **a}
            self.found.append(entry)
            self.in_label.append(entry)
            self.select = entry if tag == "select" else None
        if tag == "option" and self.select is not None:
            self.select["options"].append(a.get("value"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None
        if tag == "label":
            for entry in self.in_label:
                entry["label"] = self.label
            self.in_label = []


def controls() -> list[dict]:
    parser = Controls()
    parser.feed(INDEX.read_text())
    return parser.found


def test_every_control_matches_its_field():
    defaults = texts(ViewState())
    seen = set()
    for c in controls():
        field = FIELD_BY_KEY[c["data-key"]]
        seen.add(field.key)
        assert field.label in i18n.TEXT
        if c.get("data-scale"):
            assert c["label"] == f"{field.label}_slider", c
            assert (float(c["min"]), float(c["max"])) == (0, SLIDER_MAX)
            continue
        assert c["label"] == field.label, c
        if c.get("type") == "checkbox":
            assert field.boolean
        elif c["tag"] == "select" and field.choices:
            assert tuple(c["options"]) == field.choices, c
        elif c["tag"] == "input":
            assert (float(c["min"]), float(c["max"])) == (field.low, field.high), c
            assert float(c["value"]) == float(defaults[field.key]), c
    assert seen == {f.key for f in FIELDS if f.label}, "every labelled field has a control"
