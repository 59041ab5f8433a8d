// PyScript's `interpreter` (config.json) when the build made a memory snapshot of Python's start (build.py,
// scripts/snapshot.mjs): polyscript imports this module and calls its loadPyodide, the one route that can pass
// Pyodide's private `_loadSnapshot`. Any failure (the fetch, a build id mismatch, the restore) starts Python
// plainly, as a page without a snapshot does. `globalThis.ddpcoreStart` says which start it was, and how long
// loadPyodide took.
import { loadPyodide as load, version } from "./pyodide.mjs";

export { version };

const SNAPSHOT = new URL("./snapshot.bin.gz", import.meta.url);

async function snapshot() {
  const response = await fetch(SNAPSHOT);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  // gzipped by the build, not by the server: static hosts do not compress a binary
  const bytes = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(bytes).arrayBuffer());
}

export async function loadPyodide(options = {}) {
  const start = performance.now();
  const started = (snapshot, why) => {
    globalThis.ddpcoreStart = { snapshot, why, load_ms: performance.now() - start };
  };
  let bytes = snapshot();
  bytes.catch(() => {}); // fetched while Pyodide's wasm compiles; a failure is handled below, not reported twice
  // Pyodide keeps its options: handed a thenable, not the promise, it holds no way to the 31 MB once restored
  const later = { then: (resolve, reject) => bytes.then(resolve, reject) };
  try {
    const pyodide = await load({ ...options, _loadSnapshot: later });
    bytes = null;
    started(true, "");
    return pyodide;
  } catch (error) {
    bytes = null;
    const why = String((error && error.message) || error).split("\n")[0];
    console.warn(`Python starts without its snapshot: ${why}`);
    const pyodide = await load(options);
    started(false, why);
    return pyodide;
  }
}
