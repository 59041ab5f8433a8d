// The memory snapshot's container, written by the build (scripts/snapshot.mjs) and read by the page's loader
// (pyodide-loader.mjs): Python's heap with its long runs of zeros left out, so that there is half as much to
// inflate, and laid out so that its full size is known from its first bytes and the heap is filled as it inflates
// (docs/snapshot.md). Little-endian:
//   "DDPS" | heap length | count of parts | count x (offset, length) | the parts' bytes, in order
// No imports: the build runs it in Node, the page and the trace worker in the browser.

export const MAGIC = 0x53504444; // "DDPS"
export const ZERO_RUN = 65536; // a run of zeros at least this long is left out
const FIXED = 12;
const PART = 8;
const PYODIDE_MAGIC = 4; // the first bytes of Pyodide's own snapshot, checked before it restores anything

/** The parts of `heap` worth writing: [offset, length] pairs, in order, between its long runs of zeros. */
export function parts(heap) {
  const found = [];
  let start = 0;
  let zeros = 0;
  for (let i = 0; i < heap.length; i++) {
    if (heap[i] !== 0) {
      zeros = 0;
      continue;
    }
    zeros += 1;
    if (zeros === ZERO_RUN) {
      const end = i + 1 - ZERO_RUN;
      if (end > start) found.push([start, end - start]);
    }
    if (zeros >= ZERO_RUN) start = i + 1;
  }
  if (heap.length > start) found.push([start, heap.length - start]);
  return found;
}

/** The container of `heap` (a Uint8Array), not yet compressed. */
export function pack(heap) {
  const kept = parts(heap);
  const head = new DataView(new ArrayBuffer(FIXED + PART * kept.length));
  head.setUint32(0, MAGIC, true);
  head.setUint32(4, heap.length, true);
  head.setUint32(8, kept.length, true);
  kept.forEach(([offset, length], i) => {
    head.setUint32(FIXED + PART * i, offset, true);
    head.setUint32(FIXED + PART * i + 4, length, true);
  });
  const out = new Uint8Array(head.byteLength + kept.reduce((sum, [, length]) => sum + length, 0));
  out.set(new Uint8Array(head.buffer), 0);
  let at = head.byteLength;
  for (const [offset, length] of kept) {
    out.set(heap.subarray(offset, offset + length), at);
    at += length;
  }
  return out;
}

function joined(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** The parts named by a whole header, each checked to lie in order inside the heap; null while more is needed. */
function header(head) {
  if (head.length < FIXED) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error("the snapshot is not the build's container");
  const size = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  if (head.length < FIXED + PART * count) return null;
  const found = [];
  let end = 0;
  for (let i = 0; i < count; i++) {
    const offset = view.getUint32(FIXED + PART * i, true);
    const length = view.getUint32(FIXED + PART * i + 4, true);
    if (offset < end || length === 0 || offset + length > size) throw new Error("the snapshot's parts do not fit");
    found.push([offset, length]);
    end = offset + length;
  }
  return { size, parts: found, rest: head.subarray(FIXED + PART * count) };
}

/**
 * Read the inflated container from `stream` into a heap of its full size, handed to `onHeap` as soon as the
 * header is read (Pyodide sizes its memory by it and compiles meanwhile), then filled part by part. Resolves
 * once the heap is whole. On any failure after the heap was handed out, its first bytes are cleared before the
 * error is thrown: Pyodide then refuses it (no magic number) rather than restore half a heap.
 */
export async function fill(stream, onHeap) {
  const reader = stream.getReader();
  let head = new Uint8Array(0);
  let heap = null;
  let kept = [];
  let index = 0;
  let written = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let chunk = value;
      if (heap === null) {
        head = joined(head, chunk);
        const read = header(head);
        if (read === null) continue;
        heap = new Uint8Array(read.size);
        kept = read.parts;
        chunk = read.rest;
        head = null;
        onHeap(heap);
      }
      while (chunk.length > 0) {
        if (index === kept.length) throw new Error("the snapshot is longer than its parts");
        const [offset, length] = kept[index];
        const n = Math.min(length - written, chunk.length);
        heap.set(chunk.subarray(0, n), offset + written);
        chunk = chunk.subarray(n);
        written += n;
        if (written === length) {
          index += 1;
          written = 0;
        }
      }
    }
    if (heap === null || index !== kept.length) throw new Error("the snapshot ends early");
  } catch (error) {
    if (heap !== null) heap.fill(0, 0, PYODIDE_MAGIC);
    reader.cancel().catch(() => {});
    throw error;
  }
}
