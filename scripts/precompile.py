"""Runs inside Pyodide (scripts/precompile.mjs): bytecode for the app and the stdlib modules it imports."""

import importlib
import importlib.util
import sys
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

APP, OUT = "/tmp/app.zip", "/tmp/app-pyc.zip"
BROWSER_APP = "/home/pyodide/ddpapp.zip"  # where main.py puts the bundle on sys.path in the page
STDLIB = "/lib/python314.zip"

sys.path.insert(0, APP)
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
                relative = filename[len(root):]
                source = sys.modules[name].__loader__.get_data(filename) if root == STDLIB + "/" else app.read(relative)
                code = compile(source, shown + relative, "exec", dont_inherit=True)
                put(relative[:-3] + ".pyc", _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))
                if root == APP + "/":
                    put(relative, source)
                break
