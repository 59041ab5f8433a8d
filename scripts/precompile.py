"""Runs inside Pyodide (scripts/precompile.mjs): bytecode for the app and the stdlib modules it imports."""

import importlib
import os
import py_compile
import sys
import tempfile
import types
import zipfile
from typing import Any, cast

APP, OUT = "/tmp/app.zip", "/tmp/app-pyc.zip"
BROWSER_APP = "/home/pyodide/ddpapp.zip"  # where main.py puts the bundle on sys.path in the page
STDLIB = "/lib/python314.zip"


def pyc(source, shown):
    """Unchecked-hash bytecode of `source`, its tracebacks naming `shown` (the path the page imports it from)."""
    with tempfile.TemporaryDirectory() as folder:
        path, out = os.path.join(folder, "m.py"), os.path.join(folder, "m.pyc")
        with open(path, "wb") as handle:
            handle.write(source)
        py_compile.compile(
            path, cfile=out, dfile=shown, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
        )
        with open(out, "rb") as handle:
            return handle.read()


# The DOM shell imports PyScript, which exists only in the page: a stand-in lets it compile here.
stand_in, stand_in_ffi = types.ModuleType("pyscript"), types.ModuleType("pyscript.ffi")
vars(stand_in).update(document=None, window=None, ffi=stand_in_ffi)
vars(stand_in_ffi).update(create_proxy=None)
sys.modules.update({"pyscript": stand_in, "pyscript.ffi": stand_in_ffi})
worker_js = types.ModuleType("js")  # the worker's globals (postMessage, FileReaderSync) exist only in a browser
sys.modules.setdefault("js", worker_js)

sys.path.insert(0, APP)  # as web/main.py does in the page: the app zip is imported in place
before = set(sys.modules)
with zipfile.ZipFile(APP) as app:
    names = [n[:-3].replace("/", ".").removesuffix(".__init__") for n in app.namelist() if n.endswith(".py")]
for name in names:
    importlib.import_module(name)
with zipfile.ZipFile(APP) as app, zipfile.ZipFile(OUT, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:

    def put(path, data):
        info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(info, data)

    for name in sorted(set(sys.modules) - before):
        filename = getattr(sys.modules[name], "__file__", None) or ""
        for root, shown in ((APP + "/", BROWSER_APP + "/"), (STDLIB + "/", STDLIB + "/")):
            if filename.startswith(root) and filename.endswith(".py"):
                relative = filename[len(root) :]
                loader = cast(Any, sys.modules[name].__loader__)
                source = loader.get_data(filename) if root == STDLIB + "/" else app.read(relative)
                put(relative[:-3] + ".pyc", pyc(source, shown + relative))
                if root == APP + "/":
                    put(relative, source)
                break
