// Reads trace files off the page's main thread: its own Pyodide runs ddpcore's streaming reader on File slices,
// posting progress after each slice and the parsed traces (pickled) at the end. No SharedArrayBuffer needed.
import { loadPyodide } from "./pyscript/pyodide/pyodide.mjs";

const here = (path) => new URL(path, import.meta.url).href;
const ready = (async () => {
  const pyodide = await loadPyodide({ indexURL: here("./pyscript/pyodide/") });
  const bundle = await (await fetch(here("./py/ddpapp.zip"))).arrayBuffer();
  pyodide.FS.writeFile("/home/pyodide/ddpapp.zip", new Uint8Array(bundle));
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/ddpapp.zip')");
  return pyodide.pyimport("shell.reading");
})();

self.onmessage = async (event) => {
  try {
    const reading = await ready;
    const bytes = reading.parse_files(event.data.files, event.data.threshold);
    self.postMessage({ type: "done", bytes }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ type: "failed", message: String(error && error.message ? error.message : error) });
  }
};
