// Make the page's Python start-up snapshot with the vendored Pyodide: the app's bundle put where the page puts it,
// the modules its start needs imported, garbage collected, the heap written in its container (web/snapshot-heap.mjs)
// gzipped; then restored once here the way the page restores it, so that a snapshot this Pyodide cannot restore is
// never shipped.
// Usage: node scripts/snapshot.mjs APP_ZIP OUT_GZ MODULE[:FUNCTION]...   (called by build.py; a function named
// is called once, its work kept in the snapshot; prints the snapshot's size)
import { readFileSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { loadPyodide } from "pyodide";
import { fill, pack } from "../web/snapshot-heap.mjs";

const [bundle, target, ...modules] = process.argv.slice(2);
const BUNDLE_AT = "/home/pyodide/ddpapp.zip";
const start = `
import gc, importlib, sys
sys.path.insert(0, ${JSON.stringify(BUNDLE_AT)})
for name in ${JSON.stringify(modules)}:
    module, _, warm = name.partition(":")
    imported = importlib.import_module(module)
    if warm:
        getattr(imported, warm)()
gc.collect()
`;

async function main() {
  const maker = await loadPyodide({ _makeSnapshot: true });
  maker.FS.writeFile(BUNDLE_AT, readFileSync(bundle));
  maker.runPython(start);
  const snapshot = maker.makeMemorySnapshot();
  const packed = gzipSync(pack(snapshot), { level: 9 });

  let filled, restored;
  const sized = new Promise((resolve, reject) => {
    const inflated = Readable.toWeb(Readable.from([packed])).pipeThrough(new DecompressionStream("gzip"));
    filled = fill(inflated, (heap) => resolve((restored = heap)));
    filled.catch(reject);
  });
  const again = await loadPyodide({ _loadSnapshot: sized, fsInit: () => filled });
  if (!Buffer.from(restored).equals(Buffer.from(snapshot))) throw new Error("the container does not give the heap back");
  again.FS.writeFile(BUNDLE_AT, readFileSync(bundle));
  const missing = again.runPython(
    `import sys; [m for m in ${JSON.stringify(modules)} if m.partition(":")[0] not in sys.modules]`,
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
