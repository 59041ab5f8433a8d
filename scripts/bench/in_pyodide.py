"""The core timings in Pyodide: the same functions as natively (core_timings.py), run in a bench page of their own."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import build
from scripts.browser import launch_options

__all__ = ["pyodide_timings"]


BENCH_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>ddpcore bench</title>
<script type="module" src="./pyscript/core.js"></script></head><body><pre id="result"></pre>
<mpy-config type="json">{"plugins": %s}</mpy-config>
<script type="py" config="./bench-config.json">
import json, os, sys
sys.path.insert(0, os.path.abspath("bench.zip"))
from pyscript import document
import core_timings
from pyodide.http import pyfetch
result = core_timings.run()
trace = await (await pyfetch("./bench-trace.json")).bytes()
result["stream_s"] = core_timings.stream_seconds(trace)
document.getElementById("result").textContent = json.dumps(result)
</script></body></html>"""


def pyodide_timings(dist: Path, trace: bytes) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(dist, site)
        config = json.loads((dist / "config.json").read_text())
        build.python_bundle(site / "py" / "bench.zip", skip=("ddpcore/__main__.py", "ddpcore/cli/"))
        shutil.copy2(Path(__file__).with_name("core_timings.py"), site / "core_timings.py")
        config["files"] = {"./py/bench.zip": "./bench.zip", "./core_timings.py": "./core_timings.py"}
        config["interpreter"] = build.PLAIN_START  # its own bundle, not the page's: no snapshot of the page's
        (site / "bench-config.json").write_text(json.dumps(config))
        (site / "bench.html").write_text(BENCH_PAGE % json.dumps(build.PYSCRIPT_PLUGINS_OFF))
        (site / "bench-trace.json").write_bytes(trace)
        server, url = build.serve_in_thread(site)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**launch_options())
                page = browser.new_page()
                page.goto(url + "bench.html")
                page.wait_for_function("document.getElementById('result').textContent.length > 0", timeout=120_000)
                result = json.loads(page.text_content("#result") or "")
                browser.close()
        finally:
            server.shutdown()
    return result
