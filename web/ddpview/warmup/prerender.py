"""`python -m ddpview.warmup.prerender < template.html > index.html`: the page with its default view already drawn.

build.py runs it in a child process (with web/ and the repository on PYTHONPATH) so that the build, which runs
before any venv exists, never has to edit its own import path."""

from __future__ import annotations

import sys
from html.parser import HTMLParser

from .. import i18n
from ..markup import esc
from ..views import PRERENDERED_LANG, prerendered

__all__ = ["fill_template", "main"]

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


class _Slots(HTMLParser):
    """Where the template's filled parts are: (start, end, new text) splices, read with a real HTML parser."""

    def __init__(self, source: str, filled: dict[str, str], lang: str) -> None:
        super().__init__(convert_charrefs=False)
        self.filled, self.lang = filled, lang
        self.line_starts = [0]
        self.line_starts += [i + 1 for i, c in enumerate(source) if c == "\n"]
        self.open: list[tuple[str, str | None, int]] = []
        self.splices: list[tuple[int, int, str]] = []

    def at(self) -> int:
        """The parser's position as an offset into the template."""
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """An element whose id has prerendered markup: note where its content starts."""
        values = dict(attrs)
        start_tag = self.get_starttag_text() or ""
        end = self.at() + len(start_tag)
        if values.get("data-i18n-attr"):
            attr, key = str(values["data-i18n-attr"]).split(":", 1)
            at = end - (2 if start_tag.endswith("/>") else 1)
            self.splices.append((at, at, f' {attr}="{esc(i18n.t(key, self.lang))}"'))
        if tag in VOID:
            return
        replacement = None
        if values.get("data-i18n"):
            replacement = i18n.t(str(values["data-i18n"]), self.lang)
        elif "data-region" in values and values.get("id") in self.filled:
            replacement = self.filled[str(values["id"])]
        self.open.append((tag, replacement, end))

    def handle_endtag(self, tag: str) -> None:
        """The end of a noted element: its content is replaced by the prerendered markup."""
        while self.open:
            name, replacement, inner_start = self.open.pop()
            if name == tag:
                if replacement is not None:
                    self.splices.append((inner_start, self.at(), replacement))
                return


def fill_template(template: str, filled: dict[str, str], lang: str) -> str:
    """Pre-render: put the text of every data-i18n element and the markup of every data-region element in place
    (found by an HTML parser, whatever the order of the attributes)."""
    slots = _Slots(template, filled, lang)
    slots.feed(template)
    slots.close()
    out = template
    for start, end, inserted in sorted(slots.splices, reverse=True):
        out = out[:start] + inserted + out[end:]
    return out


def main() -> None:
    """Template on stdin, pre-rendered page on stdout (UTF-8 both ways)."""
    template = sys.stdin.buffer.read().decode("utf-8")
    sys.stdout.buffer.write(fill_template(template, prerendered(), PRERENDERED_LANG).encode("utf-8"))


if __name__ == "__main__":
    main()
