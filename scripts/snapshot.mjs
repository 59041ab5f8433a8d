// Make the page's Python start-up snapshot with the vendored Pyodide: the app's bundle put where the page puts it,
// the modules its start needs imported, garbage collected, the heap written gzipped; then restored once here, so
// that a snapshot this Pyodide cannot restore is never shipped.
// Usage: node scripts/snapshot.mjs APP_ZIP OUT_GZ MODULE...   (called by build.py; prints the snapshot's size)
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { loadPyodide } from "pyodide";

const [bundle, target, ...modules] = process.argv.slice(2);
const BUNDLE_AT = "/home/pyodide/ddpapp.zip";
const start = `
import gc, importlib, sys
sys.path.insert(0, ${JSON.stringify(BUNDLE_AT)})
for name in ${JSON.stringify(modules)}:
    importlib.import_module(name)
gc.collect()
`;

async function main() {
  const maker = await loadPyodide({ _makeSnapshot: true });
  maker.FS.writeFile(BUNDLE_AT, readFileSync(bundle));
  maker.runPython(start);
  const snapshot = maker.makeMemorySnapshot();
  const packed = gzipSync(snapshot, { level: 9 });

  const again = await loadPyodide({ _loadSnapshot: gunzipSync(packed) });
  again.FS.writeFile(BUNDLE_AT, readFileSync(bundle));
  const missing = again.runPython(
    `import sys; [m for m in ${JSON.stringify(modules)} if m not in sys.modules]`,
  ).toJs();
  if (missing.length) throw new Error(`the restored snapshot lacks ${missing.join(", ")}`);
  writeFileSync(target, packed);
  console.log(JSON.stringify({ heap_bytes: snapshot.length, bytes: packed.length }));
}

try {
  await main();
} catch (error) {
  // one line: the build says it, and goes on without a snapshot (a Python error's last line names it)
  const lines = String((error && error.message) || error).trim().split("\n");
  console.error(lines[lines.length - 1]);
  process.exit(1);
}
