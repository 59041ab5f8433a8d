"""The house's rooms: which layer may import which (a layer's front door for its public names, its modules for the
rest), and what a command or the page loads."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from paths import CORE, ROOT

from scripts.fronts import CORE_LAYERS as LAYERS
from scripts.fronts import VIEW_ROOMS

VIEW = ROOT / "web" / "ddpview"


def imports(path: Path) -> list[tuple[int, str]]:
    """Every import of a module, top level or in a function, as (level, dotted name of what is imported from)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or ""))
        elif isinstance(node, ast.Import):
            out += [(0, a.name) for a in node.names]
    return out


def core_modules() -> list[tuple[str, Path]]:
    return [(p.parent.name, p) for p in sorted(CORE.glob("*/*.py"))]


@pytest.mark.parametrize(("package", "path"), core_modules(), ids=lambda v: v if isinstance(v, str) else v.stem)
def test_each_layer_imports_only_the_layers_below(package, path):
    for level, name in imports(path):
        if level == 2:
            target, _, rest = name.partition(".")
            if target == "base" and rest == "front":
                continue
            assert target in LAYERS[package], f"{path.name} imports {target}"
            assert "." not in rest, f"{path.name} imports {name}, inside a module"
        elif level == 0 and name.startswith("ddpcore"):
            pytest.fail(f"{path.name} imports {name} by its absolute name")
        assert level <= 2


@pytest.mark.parametrize("path", sorted(VIEW.glob("*/*.py")), ids=lambda p: f"{p.parent.name}.{p.stem}")
def test_each_room_of_the_page_imports_only_the_front_doors_of_the_rooms_before_it(path):
    room = path.parent.name
    before = VIEW_ROOMS[: VIEW_ROOMS.index(room)]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 2:
            targets = [node.module] if node.module else [a.name for a in node.names]
            for target in targets:
                assert "." not in target, f"{room}.{path.stem} goes behind a front door to {target}"
                assert target in before, f"{room}.{path.stem} imports {target}, a room after it"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("ddpview"):
            pytest.fail(f"{room}.{path.stem} imports {node.module} by its absolute name")


def test_the_page_imports_ddpcore_by_its_doors_and_modules():
    for path in sorted((ROOT / "web").rglob("*.py")):
        for level, name in imports(path):
            if level == 0 and name.startswith("ddpcore."):
                layer, *rest = name.split(".")[1:]
                assert layer in LAYERS and len(rest) <= 1, f"{path.relative_to(ROOT)} imports {name}"


def public_door_names() -> dict[str, tuple[str, ...]]:
    """Every ddpcore layer's public names, as its door gives them."""
    return {p: tuple(importlib.import_module(f"ddpcore.{p}").__all__) for p in LAYERS}


def test_the_public_face_is_small_and_the_packages_face_is_the_layers():
    """The names a user needs, about sixty: `ddpcore`'s own and the layers' doors, and each of `ddpcore`'s names is
    one a layer's door gives (the layers' doors are where each public name is written)."""
    import ddpcore

    layers = {n for names in public_door_names().values() for n in names}
    assert len(layers | set(ddpcore.__all__)) <= 80
    assert set(ddpcore.__all__) <= layers


def test_every_module_says_what_it_gives():
    for path in [*CORE.rglob("*.py"), *(ROOT / "web" / "ddpview").rglob("*.py")]:
        if path.name in ("__main__.py",):
            continue
        tree = ast.parse(path.read_text())
        assert any(
            isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets) for n in tree.body
        ), path.relative_to(ROOT)


def loaded_after(code: str, prefixes: tuple[str, ...] = ("ddpcore",)) -> set[str]:
    """The modules (of these packages) a fresh Python has loaded after running `code`."""
    out = subprocess.check_output([sys.executable, "-c", code + "\nprint(sorted(sys.modules))"], cwd=ROOT, text=True)
    return {m for m in ast.literal_eval(out.strip().splitlines()[-1]) if m.startswith(prefixes)}


def test_a_command_of_the_model_never_loads_the_traces_path():
    loaded = loaded_after(
        "import sys, io, contextlib\nfrom ddpcore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['ring', '--gpus', '8', '--json'])"
    )
    assert "ddpcore.model.ring" in loaded
    assert not {m for m in loaded if m.startswith(("ddpcore.traces", "ddpcore.analysis.verdict", "ddpcore.analysis.m"))}


def test_analyzing_a_job_never_loads_the_per_rank_verdict():
    """`analyze` of a 3D-parallel job reads its table and re-times its steps: neither the per-rank verdict, its
    reports and fit, nor pyarrow (the standard library reads its Parquet; pyarrow and numpy's imports took 0.09 s,
    more than the reading)."""
    jobs = "tests/fixtures/jobs3d"
    loaded = loaded_after(
        "import sys, io, contextlib\nfrom ddpcore.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['analyze', '{jobs}/trace-ST.parquet', '{jobs}/meta-ST.yaml'])",
        prefixes=("ddpcore", "pyarrow"),
    )
    assert {"ddpcore.analysis.jobwhatif", "ddpcore.cli.jobverdicts", "ddpcore.storage.parquetfile"} <= loaded
    heavy = ("ddpcore.analysis.verdict", "ddpcore.analysis.fitting", "ddpcore.cli.verdicts")
    assert not loaded & set(heavy)
    assert not {m for m in loaded if m.startswith("pyarrow")}


def test_importing_a_package_loads_none_of_its_modules():
    """Beyond what `import ddpcore` loads (the step model, for the page's first paint)."""
    first = loaded_after("import sys, ddpcore")
    for package in LAYERS:
        loaded = loaded_after(f"import sys, ddpcore.{package}") - first
        assert not {m for m in loaded if m.startswith(f"ddpcore.{package}.")}, package


def names_given(path: Path) -> tuple[str, ...]:
    """A module's `__all__`, read without importing it."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


PACKAGES = [(f"ddpcore.{p}", CORE / p) for p in LAYERS] + [(f"ddpview.{r}", VIEW / r) for r in VIEW_ROOMS]


@pytest.mark.parametrize(("package", "folder"), PACKAGES, ids=lambda v: v if isinstance(v, str) else "")
def test_each_front_door_gives_its_modules_names(package, folder):
    """A page room's door gives every name of its modules' `__all__` (scripts/fronts.py writes the doors); a ddpcore
    layer's door gives some of them, its public ones; no name is a module's own (the module, once imported, would
    take its place in the package)."""
    door = importlib.import_module(package)
    given = {p.stem: names_given(p) for p in sorted(folder.glob("*.py")) if p.name != "__init__.py"}
    assert not set(given) & set(door.__all__)
    lazy = {m: set(n) for m, n in door._LAZY.items()}
    if package.startswith("ddpview."):
        assert lazy == {m: set(n) for m, n in given.items() if n}
    else:
        assert all(names <= set(given.get(m, ())) for m, names in lazy.items()), lazy
    for name in door.__all__:
        assert getattr(door, name) is not None


def test_the_doors_are_as_scripts_fronts_writes_them():
    """`python scripts/fronts.py` run now would change no door: the type checkers' names follow each `_LAZY`."""
    from scripts import fronts

    def read(text: str) -> str:
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                node.names.sort(key=lambda a: a.name)
        return ast.dump(tree)

    for folder in fronts.PACKAGES:
        assert read(fronts.door_of(folder)) == read((folder / "__init__.py").read_text()), folder


def test_the_pages_start_loads_no_module_of_the_traces_path():
    """What the page runs before its first input (the build's snapshot runs it) needs the step model and the page,
    not the traces' reading, verdict or fit; tests/browser/test_snapshot.py checks the page itself."""
    loaded = loaded_after(
        "import sys\nsys.path.insert(0, 'web')\nfrom ddpview.warmup import started\nstarted()",
        prefixes=("ddpcore", "ddpview"),
    )
    assert {"ddpcore.model.schedule", "ddpview.app.showing", "ddpview.views.page"} <= loaded
    assert not {m for m in loaded if m.startswith(("ddpcore.traces.", "ddpcore.analysis.", "ddpview.views.traces"))}
