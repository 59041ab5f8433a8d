"""What README and docs/ tell users to import exists: a package moved (issue 38) must not leave a snippet behind."""

import importlib
import re

import pytest
from paths import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
IMPORTS = sorted(
    {
        (page.name, module, name.strip())
        for page in PAGES
        for module, names in re.findall(r"from (ddpcore[\w.]*) import ([\w, ]+)", page.read_text())
        for name in names.split(",")
        if name.strip()
    }
)
NAMED = sorted(
    {(page.name, dotted) for page in PAGES for dotted in re.findall(r"`(ddpcore(?:\.\w+)+)`", page.read_text())}
)


@pytest.mark.parametrize(("page", "module", "name"), IMPORTS)
def test_every_import_the_docs_show_works(page, module, name):
    assert hasattr(importlib.import_module(module), name), f"{page}: from {module} import {name}"


@pytest.mark.parametrize(("page", "dotted"), NAMED)
def test_every_dotted_name_the_docs_give_exists(page, dotted):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(found, attr, None)
            assert found is not None, f"{page}: {dotted}"
        return
    pytest.fail(f"{page}: {dotted}")
