"""Reading a trace file as a stream: bounded bytes, incremental gunzip, a nesting guard, UTF-8, then JSON values one
at a time from a rolling buffer, whatever the file's indentation. Nothing holds the whole file.

>>> stream = JsonStream(iter(['{"a": [1, {"b"', ': 2}], "c": 3}']))
>>> stream.expect("{"), stream.value(), stream.expect(":"), stream.expect("["), stream.value()
('{', 'a', ':', '[', 1)
"""

from __future__ import annotations

import codecs
import json
import re
import zlib
from collections.abc import Iterable, Iterator

from ..base import Said
from ..base.words import Message

__all__ = [
    "KIB",
    "MIB",
    "MAX_RANK",
    "MAX_STEP",
    "DepthGuard",
    "JsonStream",
    "MAX_JSON_DEPTH",
    "READ_CHUNK",
    "ReadError",
    "gunzipped",
    "limited",
    "texts",
]

KIB = 1024
MIB = KIB * KIB
MAX_STEP = 10**12
"""The largest step number a file may give."""
MAX_RANK = 10**7
"""The largest rank (or world size) a file may give."""

READ_CHUNK = 64 * 1024
"""How much a file is read at a time: the reader's buffers stay a few times this size, and reads stay cheap."""
READ_AHEAD = READ_CHUNK
INFLATE_CHUNK = 1024 * 1024
BATCH_TRIES = 4
MAX_JSON_DEPTH = 64


class ReadError(Said):
    """The file cannot be read as it must be; its message (a code and values, `base.words`) says why, in one line."""


def limited(chunks: Iterable[bytes], limit: int) -> Iterator[bytes]:
    """The chunks, stopping with an error as soon as more than `limit` bytes went by.

    >>> b"".join(limited([b"abc", b"def"], limit=10))
    b'abcdef'
    >>> try:
    ...     list(limited([b"abc", b"def"], limit=4))
    ... except ReadError as e:
    ...     print(e.message.code)
    file.over_limit
    """
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise ReadError("file.over_limit", mib=limit // MIB)
        yield chunk


def gunzipped(chunks: Iterable[bytes], limit: int) -> Iterator[bytes]:
    """Inflate gzip (member after member) when the content starts with gzip's magic bytes, else pass through; the
    output is bounded while inflating, so a gzip bomb stops at the limit having cost little.

    >>> import gzip
    >>> b"".join(gunzipped([gzip.compress(b"ab") + gzip.compress(b"cd")], 10))
    b'abcd'
    """
    source = iter(chunks)
    first = b""
    for chunk in source:
        first += chunk
        if len(first) >= 2:
            break
    if first[:2] != b"\x1f\x8b":
        if first:
            yield first
        yield from source
        return
    total = 0
    inflater = zlib.decompressobj(wbits=31)
    in_member = True
    pending = first
    try:
        while True:
            while pending:
                if not in_member:
                    if pending[:2] != b"\x1f\x8b":
                        raise ReadError("file.gzip_trailing")
                    inflater, in_member = zlib.decompressobj(wbits=31), True
                out = inflater.decompress(pending, INFLATE_CHUNK)
                pending = inflater.unconsumed_tail
                if inflater.eof:
                    pending, in_member = inflater.unused_data + pending, False
                total += len(out)
                if total > limit:
                    raise ReadError("file.over_limit_inflated", mib=limit // MIB)
                if out:
                    yield out
            pending = next(source, b"")
            if not pending:
                break
    except zlib.error as exc:
        raise ReadError("file.gzip", detail=str(exc)) from None
    if in_member:
        raise ReadError("file.gzip_truncated")


_STRUCTURE = b'"[]{}\\'
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in _STRUCTURE)
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_INNERMOST = re.compile(rb"\{\}|\[\]")
_OPEN = re.compile(rb"[\[{]")


class DepthGuard:
    """Finds JSON nested deeper than the limit without parsing, chunk after chunk (parsers recurse, and in
    WebAssembly a deep recursion kills the page). Strings are set aside first, so brackets in names do not count.

    >>> guard = DepthGuard(3)
    >>> guard.feed(b'{"a": [[1], "]]]'), guard.feed(b'"]}')
    (b'{"a": [[1], "]]]', b'"]}')
    >>> DepthGuard(2).feed(b'[[[1]]]')
    Traceback (most recent call last):
    ddpcore.traces.reader.ReadError: JSON nested deeper than 2 levels: not a trace
    """

    def __init__(self, limit: int = MAX_JSON_DEPTH) -> None:
        self.limit = limit
        self.depth = 0
        self.in_string = False
        self.carry = b""

    def feed(self, chunk: bytes) -> bytes:
        """Check one chunk (the nesting carried over from the ones before); return it unchanged."""
        data = self.carry + chunk
        cut = len(data) - (len(data) - len(data.rstrip(b"\\"))) % 2  # an escape split across chunks waits
        data, self.carry = data[:cut], data[cut:]
        unescaped = _ESCAPE.sub(b"", data) if b"\\" in data else data
        skeleton = unescaped.translate(None, _NOT_STRUCTURE).replace(b"\\", b"")
        if self.in_string:
            end = skeleton.find(b'"')
            if end < 0:
                return chunk
            skeleton, self.in_string = skeleton[end + 1 :], False
        skeleton = _STRING.sub(b"", skeleton.replace(b'""', b""))  # a pair gone keeps every bracket's side
        if b'"' in skeleton:
            skeleton, self.in_string = skeleton[: skeleton.index(b'"')], True
        passes = 0
        while True:
            skeleton, removed = _INNERMOST.subn(b"", skeleton)
            if not removed:
                break
            passes += 1
            if self.depth + passes > self.limit:
                break
        openers = len(_OPEN.findall(skeleton))
        if self.depth + passes + openers > self.limit:
            raise ReadError("file.nested", levels=self.limit)
        self.depth += openers - (len(skeleton) - openers)
        return chunk


def texts(chunks: Iterable[bytes]) -> Iterator[str]:
    """UTF-8 text (a byte-order mark dropped), decoded chunk by chunk.

    >>> list(texts([b"caf\\xc3", b"\\xa9 ok"]))
    ['caf', 'é ok']
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        for chunk in chunks:
            text = decoder.decode(chunk)
            if text:
                yield text
        tail = decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise ReadError("file.not_utf8") from None
    if tail:
        yield tail


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class JsonStream:
    """JSON values and punctuation read one at a time from text chunks, through a rolling buffer."""

    def __init__(self, chunks: Iterable[str]) -> None:
        self.chunks = iter(chunks)
        self.buffer = ""
        self.pos = 0
        self.lines_before = 0
        self.counted = (0, 0)
        """(position, newlines before it) in the buffer: a line number is counted on from the last one asked for."""
        self.done = False

    def _more(self) -> bool:
        """Read at least READ_AHEAD more characters (fewer at the end); drop what was consumed."""
        if self.done:
            return False
        if self.pos > READ_AHEAD or self.pos * 2 > len(self.buffer):
            self.lines_before += self.buffer.count("\n", 0, self.pos)
            self.buffer, self.pos, self.counted = self.buffer[self.pos :], 0, (0, 0)
        parts, size = [self.buffer], 0
        while size < READ_AHEAD:
            chunk = next(self.chunks, None)
            if chunk is None:
                self.done = True
                break
            parts.append(chunk)
            size += len(chunk)
        self.buffer = "".join(parts)
        return size > 0

    def line(self, pos: int | None = None) -> int:
        """The line (1-based) of a position in the buffer (default: the reading position). Counted on from the
        last position asked for: JSONL asks at every row, and counting from the buffer's start each time made
        reading quadratic in the buffer."""
        at = self.pos if pos is None else pos
        start, lines = self.counted if at >= self.counted[0] else (0, 0)
        lines += self.buffer.count("\n", start, at)
        self.counted = (at, lines)
        return self.lines_before + lines + 1

    def peek(self) -> str:
        """The next character that is not white space, or '' at the end."""
        while True:
            self.pos = _SPACE.match(self.buffer, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self._more():
                return ""

    def expect(self, char: str) -> str:
        """Consume `char` (after white space) or fail with where the file went wrong."""
        found = self.peek()
        if found != char:
            what = repr(found) if found else Message.of("json.end")
            raise ReadError(
                "file.json_at_line",
                line=self.line(),
                reason=Message.of("json.expected", expected=repr(char), found=what),
            )
        self.pos += 1
        return char

    def value(self) -> object:
        """One complete JSON value (reading more of the file while the value is not complete)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                if self._more():
                    continue
                raise ReadError(
                    "file.json_at_line", line=self.line(exc.pos), reason=Message.of("json.decoder", detail=exc.msg)
                ) from None
            except ValueError:
                raise ReadError(
                    "file.json_at_line", line=self.line(), reason=Message.of("json.number_too_long")
                ) from None
            except RecursionError:
                raise ReadError("file.json_too_deep", line=self.line(), reason=Message.of("json.not_a_trace")) from None
            if end == len(self.buffer) and not self.done and isinstance(value, (int, float)) and self._more():
                continue
            self.pos = end
            return value

    def items(self) -> Iterator[object]:
        """The values of the JSON array whose '[' was just consumed, up to and including its ']'.

        Whole runs of items are decoded with one call where a cut between two items can be found (it is tried at
        the last '},' of the buffer: only a cut between top-level items decodes), else one item at a time."""
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            batch = self._batch()
            if batch is not None:
                yield from batch
                continue
            yield self.value()
            following = self.peek()
            if following == "]":
                self.pos += 1
                return
            self.expect(",")

    def _batch(self) -> list | None:
        end = len(self.buffer)
        for _ in range(BATCH_TRIES):
            cut = self.buffer.rfind("},", self.pos, end)
            if cut <= self.pos:
                return None
            try:
                values = _DECODER.raw_decode("[" + self.buffer[self.pos : cut + 1] + "]")[0]
            except ValueError:
                end = cut
                continue
            except RecursionError:
                return None
            self.pos = cut + 2
            return values
        return None
