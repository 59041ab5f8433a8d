// PyScript's `interpreter` (config.json) when the build made a memory snapshot of Python's start (build.py,
// scripts/snapshot.mjs): polyscript imports this module and calls its loadPyodide, the one route that can pass
// Pyodide's private `_loadSnapshot`. Any failure (the fetch, the container, a build id mismatch, the restore)
// starts Python plainly, as a page without a snapshot does. `globalThis.ddpcoreStart` says which start it was,
// and how long loadPyodide took.
import { loadPyodide as load, version } from "./start.mjs";
import { fill } from "./snapshot-heap.mjs";

export { version };

const SNAPSHOT = new URL("./snapshot.bin.gz", import.meta.url);

/** The snapshot as Pyodide takes it: the heap, sized as soon as the container's header has inflated, and a
 * promise of the reason it could not be filled ("" once it is whole; it never rejects). */
function snapshot() {
  let shown;
  const heap = new Promise((resolve, reject) => {
    shown = { resolve, reject };
  });
  const filled = fetch(SNAPSHOT).then((response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    // gzipped by the build, not by the server: static hosts do not compress a binary
    return fill(response.body.pipeThrough(new DecompressionStream("gzip")), shown.resolve);
  });
  filled.catch(shown.reject); // no header: Pyodide hears of it at once
  const reason = filled.then(
    () => "",
    (error) => String((error && error.message) || error),
  );
  return { heap, reason };
}

export async function loadPyodide(options = {}) {
  const start = performance.now();
  const started = (snapshot, why) => {
    globalThis.ddpcoreStart = { snapshot, why, load_ms: performance.now() - start };
  };
  let taken = snapshot();
  taken.heap.catch(() => {}); // a failure is handled below, not reported twice
  const { reason } = taken;
  // Pyodide keeps its options: handed a thenable, not the promise, it holds no way to the 31 MB once restored
  const later = { then: (resolve, reject) => taken.heap.then(resolve, reject) };
  // the wasm compiles while the heap fills; Pyodide waits for this hook before it restores the heap
  const fsInit = async (fs, info) => {
    await reason;
    if (options.fsInit) await options.fsInit(fs, info);
  };
  try {
    const pyodide = await load({ ...options, _loadSnapshot: later, fsInit });
    taken = null;
    started(true, "");
    return pyodide;
  } catch (error) {
    taken = null;
    const why = (await reason) || String((error && error.message) || error).split("\n")[0];
    console.warn(`Python starts without its snapshot: ${why}`);
    const pyodide = await load(options);
    started(false, why);
    return pyodide;
  }
}
