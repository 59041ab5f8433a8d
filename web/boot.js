// Loading progress and boot errors only: shown before Python is live. Everything else is Python (main.py).
// The names of picked files in one call (thousands of File proxies, one at a time, cost Python seconds).
globalThis.ddpcoreFileNames = (files) => JSON.stringify(Array.from(files, (file) => file.name));
// A figure updated in place: the new markup is parsed inert, then only the attributes and texts that differ are
// written into the nodes already shown, so moving a slider re-lays out a few bars, not the whole figure.
const morphNode = (from, to) => {
  if (from.nodeType !== to.nodeType || from.nodeName !== to.nodeName) {
    from.replaceWith(to);
  } else if (from.nodeType !== Node.ELEMENT_NODE) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
  } else {
    for (const { name, value } of Array.from(to.attributes)) {
      if (from.getAttribute(name) !== value) from.setAttribute(name, value);
    }
    for (const { name } of Array.from(from.attributes)) {
      if (!to.hasAttribute(name)) from.removeAttribute(name);
    }
    morphChildren(from, to);
  }
};
const morphChildren = (from, to) => {
  let a = from.firstChild;
  let b = to.firstChild;
  while (b) {
    const nextB = b.nextSibling;
    if (a) {
      const nextA = a.nextSibling;
      morphNode(a, b);
      a = nextA;
    } else {
      from.appendChild(b);
    }
    b = nextB;
  }
  while (a) {
    const nextA = a.nextSibling;
    a.remove();
    a = nextA;
  }
};
globalThis.ddpcoreMorph = (element, markup) => {
  const parsed = document.createElement("template");
  parsed.innerHTML = markup;
  morphChildren(element, parsed.content);
};
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
