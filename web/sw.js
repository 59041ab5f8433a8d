// The offline cache: precaches one build, named by its content hash, so the site works offline after a visit.
// build.py writes this build's hash in place of the marker below and lists the files in precache.json.
const BUILD = "@BUILD_HASH@";
const CACHE = `ddpcore-${BUILD}`;
self.addEventListener("install", (event) => {
  event.waitUntil(
    fetch("./precache.json", { cache: "no-store" })
      .then((response) => response.json())
      .then((files) => caches.open(CACHE).then((cache) => cache.addAll(files)))
      .then(() => self.skipWaiting()),
  );
});
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("ddpcore-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});
self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET" || new URL(event.request.url).origin !== location.origin) return;
  event.respondWith(
    caches.open(CACHE)
      .then((cache) => cache.match(event.request, { ignoreSearch: true }))
      .then((hit) => hit || fetch(event.request)),
  );
});
