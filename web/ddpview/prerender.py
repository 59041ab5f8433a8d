"""`python -m ddpview.prerender < template.html > index.html`: the page with its default view already drawn.

build.py runs it in a child process (with web/ and the repository on PYTHONPATH) so that the build, which runs
before any venv exists, never has to edit its own import path."""

from __future__ import annotations

import sys

from .page import PRERENDERED_LANG, fill_template, prerendered


def main() -> None:
    """Template on stdin, pre-rendered page on stdout (UTF-8 both ways)."""
    template = sys.stdin.buffer.read().decode("utf-8")
    sys.stdout.buffer.write(fill_template(template, prerendered(), PRERENDERED_LANG).encode("utf-8"))


if __name__ == "__main__":
    main()
