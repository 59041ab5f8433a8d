// Loading progress and boot errors: shown before Python is live. Everything else is Python (main.py), but for two
// helpers that spare it many calls across to JavaScript: the names of picked files in one call (thousands of File
// proxies, one at a time, cost Python seconds), and a region's changes applied in one call; and the mark of a box
// that scrolls sideways, which follows layout rather than state.
globalThis.ddpcoreFileNames = (files) => JSON.stringify(Array.from(files, (file) => file.name));
// A region updated in place (ddpview.markup.patches): [element count, [[number, tag, attribute or "" for the text, value or
// null to remove], ...]]. Nothing is changed, and false returned, unless the region holds that many elements and
// each change's element has its tag: the page then writes the region whole.
globalThis.ddpcorePatch = (region, json) => {
  const [count, changes] = JSON.parse(json);
  const all = region.getElementsByTagName("*");
  if (all.length !== count) return false;
  for (const [n, tag] of changes) if (all[n].localName.toLowerCase() !== tag.toLowerCase()) return false;
  for (const [n, , name, value] of changes) {
    if (name === "") all[n].textContent = value;
    else if (value === null) all[n].removeAttribute(name);
    else all[n].setAttribute(name, value);
  }
  return true;
};
// A box that scrolls sideways says so: the line after it (.scroll-cue) shows while its content is wider than it, on
// any screen, as the box is resized or its content written.
const markScrollers = () => {
  for (const cue of document.querySelectorAll(".scroll-cue")) {
    const box = cue.previousElementSibling;
    if (!box) continue;
    const mark = () => box.toggleAttribute("data-overflows", box.scrollWidth > box.clientWidth + 1);
    new ResizeObserver(mark).observe(box);
    new MutationObserver(mark).observe(box, { childList: true, subtree: true });
  }
};
if (document.readyState === "loading") addEventListener("DOMContentLoaded", markScrollers);
else markScrollers();
// A file dropped anywhere is never opened in place of the page: only Your traces takes drops (its handler reads
// them); elsewhere the pointer says no drop, from the first paint on, before Python is live.
for (const kind of ["dragover", "drop"]) {
  document.addEventListener(kind, (event) => {
    event.preventDefault();
    if (event.dataTransfer && !event.target.closest?.("#panel-traces")) event.dataTransfer.dropEffect = "none";
  });
}
(() => {
  let step = 0;
  addEventListener("py:progress", (event) => {
    const bar = document.getElementById("boot-progress");
    const stage = document.getElementById("boot-stage");
    if (bar) bar.value = Math.min(++step, bar.max - 1);
    if (stage && typeof event.detail === "string") stage.textContent = event.detail + "…";
  });
  const report = (message) => {
    if (document.documentElement.classList.contains("ready")) return;
    const box = document.getElementById("errors");
    if (!box) return;
    const line = document.createElement("pre");
    line.textContent = String(message);
    box.append(line);
    box.hidden = false;
  };
  // The offline cache fills once Python is live, so its downloads do not compete with the first start.
  const registerWorker = () => {
    if ("serviceWorker" in navigator && window.isSecureContext) {
      navigator.serviceWorker.register("./sw.js").catch((error) => console.warn("offline cache unavailable:", error));
    }
  };
  new MutationObserver((_, observer) => {
    if (document.documentElement.classList.contains("ready")) {
      observer.disconnect();
      registerWorker();
    }
  }).observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  addEventListener("error", (event) => report(event.message || event.error || "error"));
  addEventListener("unhandledrejection", (event) => report(event.reason && (event.reason.message || event.reason)));
})();
