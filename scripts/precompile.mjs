// Compile the app and the standard-library modules it imports to bytecode with the vendored Pyodide itself
// (same CPython, same magic number), so the browser does not compile them from source at every start.
// Usage: node scripts/precompile.mjs SOURCE_ZIP OUT_ZIP   (called by build.py)
import { readFileSync, writeFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [source, target] = process.argv.slice(2);
const py = await loadPyodide();
py.FS.writeFile("/tmp/app.zip", readFileSync(source));
py.runPython(readFileSync(new URL("./precompile.py", import.meta.url), "utf8"));
writeFileSync(target, py.FS.readFile("/tmp/app-pyc.zip"));
