"""Which Chromium the tests and scripts drive: the system one when there is one, else Playwright's own."""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM_DEFAULT = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


def system_chromium() -> str | None:
    """CHROMIUM_PATH, else /usr/bin/chromium when it exists."""
    return os.environ.get("CHROMIUM_PATH") or (CHROMIUM_DEFAULT if Path(CHROMIUM_DEFAULT).exists() else None)


def launch_options() -> dict:
    """Playwright launch options: the system Chromium when there is one, else Playwright's own browser."""
    path = system_chromium()
    options: dict = {"args": CHROMIUM_ARGS}
    if path:
        options["executable_path"] = path
    return options
