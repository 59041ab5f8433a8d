// Reads trace files off the page's main thread: its own Pyodide runs ddpcore's streaming reader on File slices,
// posting progress as it goes and the measurement (pickled, in parts) at the end. No SharedArrayBuffer needed.
import { loadPyodide } from "./pyscript/pyodide/start.mjs";

const here = (path) => new URL(path, import.meta.url).href;
const ready = (async () => {
  const pyodide = await loadPyodide({ indexURL: here("./pyscript/pyodide/") });
  const bundle = await (await fetch(here("./py/ddpapp.zip"))).arrayBuffer();
  pyodide.FS.writeFile("/home/pyodide/ddpapp.zip", new Uint8Array(bundle));
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/ddpapp.zip')");
  return pyodide.pyimport("shell.reading");
})();

const picked = [];
self.onmessage = async (event) => {
  if (event.data.files) {
    picked.push(...event.data.files);
    if (event.data.more) return;
  }
  try {
    const reading = await ready;
    if (event.data.perfetto) {
      const bytes = reading.job_perfetto();
      self.postMessage({ type: reading.PERFETTO, bytes }, [bytes.buffer]);
      return;
    }
    if (event.data.refit !== undefined) {
      const bytes = reading.refit(event.data.refit);
      self.postMessage({ type: reading.FITTED, bytes }, [bytes.buffer]);
      return;
    }
    const files = picked.splice(0);
    const parts = reading.parse_files(files);
    self.postMessage({ type: reading.DONE, parts }, parts.map((part) => part.buffer));
  } catch (error) {
    self.postMessage({ message: String(error && error.message ? error.message : error) });
  }
};
