// Every Pyodide of the page (its own and the trace worker's, with or without a snapshot) is loaded through this
// module: Pyodide without WebAssembly stack switching (JSPI). Where JSPI is present, Pyodide runs each asyncio step
// and each promise callback on a stack of its own; Chromium 156's renderer then crashed now and then while the page
// ran (docs/snapshot.md, "Without stack switching"). The page never suspends Python inside a synchronous call (no
// `run_sync`), so it loses nothing. Pyodide looks for these names when `loadPyodide` runs, not when it is imported,
// and this module's body runs before any caller's.
export { loadPyodide, version } from "./pyodide.mjs";

for (const name of ["Suspending", "promising", "Suspender"]) delete WebAssembly[name];
