"""Build and serve the ddpcore site. Standard library only: it runs before any venv exists.

The other commands set up what they need and run code of scripts/ (scripts/tasks.py).

    python build.py serve [--port 8000]   build dist/ and serve it on 127.0.0.1
    python build.py test [pytest args]    install what tests need, build, run every test
    python build.py build                 build dist/ only
    python build.py screenshot            write docs/screenshot.png from the real page
    python build.py bench                 measure speed budgets into bench/ (not part of the tests)
    python build.py bench --scale         the summaries path at 10^6-10^8 rank-steps, into bench/ (minutes)
    python build.py bench --verdict       the verdict's false alarms and misses over a grid of runs (15 minutes)
    python build.py bench --jobs3d [--artifact DIR]   3D-parallel what-if against the OSDI 2025 artifact's scripts
    python build.py bench --callbacks     what the Lightning and Hugging Face callbacks add to a step
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DIST = ROOT / "dist"
WEB = ROOT / "web"
NODE_MODULES = ROOT / "node_modules"
PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
PYODIDE_DIR = NODE_MODULES / "pyodide"
PYSCRIPT_PATTERNS = ("core.js", "core-*.js", "core.css", "error-*.js")
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PYSCRIPT_PLUGINS_OFF = ["!deprecations-manager", "!donkey", "!py-editor", "!py-game", "!py-terminal"]
SNAPSHOT = "snapshot.bin.gz"
"""Python's start as a memory snapshot (docs/snapshot.md), next to the Pyodide it was made with and its loader."""
START = "start.mjs"
"""Pyodide's `loadPyodide` without WebAssembly stack switching (web/pyodide-start.mjs): every Pyodide of the page
starts through it, beside `pyodide.mjs`."""
LOADER = "loader.mjs"
HEAP_FORMAT = "snapshot-heap.mjs"
"""The snapshot's container (web/snapshot-heap.mjs), imported by the loader and by scripts/snapshot.mjs."""
WORKER = "parse-worker.mjs"
PLAIN_START = f"./pyscript/pyodide/{START}"
"""Python's plain start: PyScript's `interpreter`, and what the trace worker imports, unless the build made a
snapshot; then both start through the loader beside it (which starts Pyodide the same way)."""
SNAPSHOT_STDLIB = ["asyncio", "html", "json", "pickle", "traceback"]
"""Standard modules the page's start imports beyond the bundle's own (html: PyScript's display module)."""
SNAPSHOT_WARM = ["ddpview.warmup:started"]
"""Pure start-up work done once in the snapshot, as `module:function`: what the page's start runs before its first
input (the default view drawn as its first render would draw it again), which imports the modules the start needs
and only those."""
WEB_SKIP = (
    "ddpcore/__main__.py",
    "ddpcore/cli/",
    "ddpcore/ops/exporter.py",
    "ddpcore/ops/replay.py",
    "ddpcore/traces/parquet.py",
)
"""Command-line and server modules (and packages, ending in /) the page never imports (the exporter needs
prometheus_client, the Parquet writer pyarrow)."""
MIME = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".py": "text/plain; charset=utf-8",
    ".zip": "application/zip",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}


def log(message: str) -> None:
    print(f"[build] {message}", flush=True)


def run(cmd: list[str], **kwargs) -> None:
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, cwd=kwargs.pop("cwd", ROOT), **kwargs)


def digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def ensure_node_modules() -> None:
    """npm ci when node_modules is missing or older than package-lock.json."""
    stamp = NODE_MODULES / ".ddpcore-lock-digest"
    wanted = digest(ROOT / "package.json", ROOT / "package-lock.json")
    if stamp.exists() and stamp.read_text() == wanted and PYSCRIPT_DIST.exists() and PYODIDE_DIR.exists():
        return
    if not shutil.which("npm"):
        sys.exit("build: npm is needed to fetch the pinned PyScript and Pyodide (install Node.js 20+)")
    run(["npm", "ci", "--no-audit", "--no-fund"])
    stamp.write_text(wanted)


BUNDLE = "ddpapp.zip"
EXAMPLES = {"cpu": ("ddp4", "*.pt.trace.json.gz"), "gpu": ("hta_torchrec", "*")}
"""The page's example runs: name -> (folder of tests/fixtures, files to copy; a licence file travels with its data)."""


def python_bundle(target: Path, skip: tuple[str, ...] = WEB_SKIP) -> Path:
    """ddpcore, ddpview and the DOM shell, their subpackages included, in one zip that Python imports in place: one
    request instead of fifty."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as bundle:
        for package, base in (("ddpcore", ROOT), ("ddpview", WEB), ("shell", WEB)):
            for path in sorted((base / package).rglob("*.py")):
                name = path.relative_to(base).as_posix()
                if not any(name == s or (s.endswith("/") and name.startswith(s)) for s in skip):
                    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                    info.compress_type = zipfile.ZIP_DEFLATED
                    bundle.writestr(info, path.read_bytes())
    return target


def precompiled(bundle: Path) -> Path:
    """Replace the bundle by one with bytecode, compiled by the vendored Pyodide (sources kept for tracebacks)."""
    compiled = bundle.with_suffix(".pyc.zip")
    result = subprocess.run(
        ["node", str(ROOT / "scripts" / "precompile.mjs"), str(bundle), str(compiled)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or not compiled.exists():
        lines = result.stderr.strip().splitlines() or ["?"]
        why = next((line for line in reversed(lines) if "Error" in line and len(line) < 500), lines[-1][-300:])
        log("bytecode precompile failed, shipping sources only: " + why)
        return bundle
    compiled.replace(bundle)
    return bundle


def snapshot(bundle: Path, pyodide_dir: Path) -> bool:
    """Python's start made once here, as the page's would be (scripts/snapshot.mjs): the packages' front doors
    imported (which load no module), the start's work run (SNAPSHOT_WARM, which loads what it needs); written
    gzipped with its loader next to the Pyodide that made it; False, with one line saying why, when it cannot be
    made or restored (the page then starts Python plainly)."""
    with zipfile.ZipFile(bundle) as zf:
        sources = [n.removesuffix(".py") for n in zf.namelist() if n.endswith(".py")]
    doors = sorted(n.removesuffix("/__init__").replace("/", ".") for n in sources if n.endswith("__init__"))
    modules = [d for d in doors if d.split(".")[0] in ("ddpcore", "ddpview")]
    modules += SNAPSHOT_STDLIB + SNAPSHOT_WARM
    result = subprocess.run(
        ["node", str(ROOT / "scripts" / "snapshot.mjs"), str(bundle), str(pyodide_dir / SNAPSHOT), *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or not (pyodide_dir / SNAPSHOT).exists():
        why = (result.stderr.strip().splitlines() or ["?"])[-1][-300:]
        log("no memory snapshot, Python will start plainly: " + why)
        return False
    shutil.copy2(WEB / "pyodide-loader.mjs", pyodide_dir / LOADER)
    shutil.copy2(WEB / HEAP_FORMAT, pyodide_dir / HEAP_FORMAT)
    sizes = json.loads(result.stdout.strip().splitlines()[-1])
    log(f"memory snapshot: {sizes['bytes'] / 1e6:.1f} MB gzipped ({sizes['heap_bytes'] / 1e6:.0f} MB of heap)")
    return True


def prerender(template: str) -> str:
    """The page with the default view drawn by the same Python that draws it live (web/ddpview/warmup/prerender.py)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(WEB)])}
    result = subprocess.run(
        [sys.executable, "-m", "ddpview.warmup.prerender"],
        input=template.encode("utf-8"),
        env=env,
        capture_output=True,
        check=True,
    )
    return result.stdout.decode("utf-8")


def build(out: Path = DIST, with_snapshot: bool = True) -> Path:
    ensure_node_modules()
    if out.exists():
        shutil.rmtree(out)
    (out / "pyscript" / "pyodide").mkdir(parents=True)
    for pattern in PYSCRIPT_PATTERNS:
        matches = sorted(PYSCRIPT_DIST.glob(pattern))
        if not matches:
            sys.exit(f"build: no {pattern} in {PYSCRIPT_DIST}")
        for path in matches:
            shutil.copy2(path, out / "pyscript" / path.name)
    for name in PYODIDE_FILES:
        shutil.copy2(PYODIDE_DIR / name, out / "pyscript" / "pyodide" / name)
    shutil.copy2(WEB / "pyodide-start.mjs", out / "pyscript" / "pyodide" / START)
    bundle = precompiled(python_bundle(out / "py" / BUNDLE))
    snapshotted = with_snapshot and snapshot(bundle, out / "pyscript" / "pyodide")
    for name in ("main.py", "style.css", "boot.js"):
        shutil.copy2(WEB / name, out / name)
    start = PLAIN_START.replace(START, LOADER) if snapshotted else PLAIN_START
    (out / WORKER).write_text((WEB / WORKER).read_text().replace(PLAIN_START, start))
    index = {}
    for name, (folder, pattern) in EXAMPLES.items():
        (out / "examples" / name).mkdir(parents=True)
        for path in sorted((ROOT / "tests" / "fixtures" / folder).glob(pattern)):
            shutil.copy2(path, out / "examples" / name / path.name)
        index[name] = sorted(p.name for p in (out / "examples" / name).iterdir() if p.name.endswith(".gz"))
    (out / "examples" / "index.json").write_text(json.dumps(index))
    config = {
        "interpreter": start,
        "files": {f"./py/{BUNDLE}": f"./{BUNDLE}"},
        "plugins": PYSCRIPT_PLUGINS_OFF,
    }
    (out / "config.json").write_text(json.dumps(config, indent=1))
    template = (
        (WEB / "index.html").read_text(encoding="utf-8").replace("@PLUGINS_OFF@", json.dumps(PYSCRIPT_PLUGINS_OFF))
    )
    (out / "index.html").write_text(prerender(template), encoding="utf-8")
    content = hashlib.sha256()
    files = sorted(p for p in out.rglob("*") if p.is_file())
    for path in files:
        content.update(path.relative_to(out).as_posix().encode())
        content.update(path.read_bytes())
    build_hash = content.hexdigest()[:16]
    (out / "build.json").write_text(json.dumps({"hash": build_hash}))
    write_service_worker(
        out,
        build_hash,
        ["./", *(f"./{p.relative_to(out).as_posix()}" for p in files), "./build.json", "./precache.json"],
    )
    log(f"built {out} ({sum(p.stat().st_size for p in out.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
    return out


BUILD_HASH_MARK = "@BUILD_HASH@"


def write_service_worker(out: Path, build_hash: str, files: list[str]) -> None:
    """web/sw.js with this build's hash, and the list of files it precaches (precache.json)."""
    (out / "precache.json").write_text(json.dumps(files, indent=1))
    (out / "sw.js").write_text((WEB / "sw.js").read_text().replace(BUILD_HASH_MARK, build_hash))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME}

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        if os.environ.get("DDPCORE_HTTP_LOG"):
            super().log_message(format, *args)


def make_server(directory: Path, port: int = 0, host: str = "127.0.0.1") -> http.server.ThreadingHTTPServer:
    """A static server for dist/ (port 0 = any free port); tests run it in-process."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve_in_thread(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = make_server(directory)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def serve(port: int) -> None:
    build()
    server = make_server(DIST, port)
    print(f"Serving ddpcore at http://127.0.0.1:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python build.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="build dist/")
    p_build.add_argument("--no-snapshot", action="store_true", help="no memory snapshot: Python starts plainly")
    p_serve = sub.add_parser("serve", help="build and serve dist/ on 127.0.0.1")
    p_serve.add_argument("--port", type=int, default=8000, help="port (0 = any free port; default 8000)")
    sub.add_parser("test", help="install test needs, build, run every test (extra args go to pytest)")
    p_shot = sub.add_parser("screenshot", help="write a screenshot of the page")
    p_shot.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    p_bench = sub.add_parser("bench", help="measure speed budgets; writes bench/results.json and bench/README.md")
    p_bench.add_argument("--out", type=Path, default=ROOT / "bench")
    p_bench.add_argument(
        "--scale",
        action="store_true",
        help="only the summaries path at 10^6, 10^7 and 10^8 rank-steps (minutes; bench/results.json's scale)",
    )
    p_bench.add_argument(
        "--verdict",
        action="store_true",
        help="only the verdict's operating characteristic over a grid of generated runs (about 15 minutes; "
        "bench/results.json's verdict, and its table in docs/traces.md)",
    )
    p_bench.add_argument(
        "--jobs3d",
        action="store_true",
        help="only the 3D-parallel what-if on the three published traces, against the artifact's own scripts when "
        "--artifact DIR (a checkout of ByteDance-Seed/StragglerAnalysis) is given (bench/results.json's jobs3d)",
    )
    p_bench.add_argument("--artifact", type=Path, help="with --jobs3d: the artifact's checkout")
    p_bench.add_argument(
        "--callbacks",
        action="store_true",
        help="only what the framework callbacks add to a training step (bench/results.json's callbacks)",
    )
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "build":
        build(with_snapshot=not args.no_snapshot)
    elif args.command == "serve":
        serve(args.port)
    elif args.command == "test":
        return _task("test", *rest)
    elif args.command == "bench" and args.scale:
        return _task("bench.scale", str(args.out))
    elif args.command == "bench" and args.verdict:
        return _task("bench.verdict", str(args.out))
    elif args.command == "bench" and args.callbacks:
        return _task("bench.callbacks", str(args.out))
    elif args.command == "bench" and args.jobs3d:
        given = ["--artifact", str(args.artifact.resolve())] if args.artifact else []
        return _task("bench.jobs3d", str(args.out), *given)
    elif args.command in ("screenshot", "bench"):
        return _task(args.command, str(args.out))
    return 0


def _task(*args: str) -> int:
    """A command of scripts/tasks.py, in a process of its own: tasks import this module, never the reverse."""
    return subprocess.run([sys.executable, "-m", "scripts.tasks", *args], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
