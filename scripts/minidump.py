"""A crashed renderer's own account, read from the minidump Chromium's crash handler wrote: which signal, where, on
which thread, at which instruction of which binary. Enough to tell one crash from another without symbols (the
Microsoft minidump format: a header, a directory of streams, little-endian)."""

from __future__ import annotations

import os
import signal
import struct
from dataclasses import dataclass
from pathlib import Path

MODULE_LIST, EXCEPTION, THREAD_NAMES = 4, 6, 0x18
SEGV_CODES = {1: "SEGV_MAPERR", 2: "SEGV_ACCERR"}
RIP = 0xF8
"""Offset of the instruction pointer in an x86-64 thread context."""


@dataclass(frozen=True)
class Crash:
    """One crash dump, summed up."""

    signal: str
    code: str
    address: int
    thread: str
    where: str

    def line(self) -> str:
        """The crash in one line."""
        return f"{self.signal} ({self.code}) at {self.address:#x}, thread {self.thread!r}, in {self.where}"


def _utf16(data: bytes, rva: int) -> str:
    (length,) = struct.unpack_from("<I", data, rva)
    return data[rva + 4 : rva + 4 + length].decode("utf-16-le", "replace")


def read_crash(path: Path) -> Crash | None:
    """The dump's crash, or None when it holds no exception (or is not a minidump)."""
    data = path.read_bytes()
    if data[:4] != b"MDMP":
        return None
    _, _, count, directory = struct.unpack_from("<4sIII", data, 0)
    streams = {}
    for i in range(count):
        kind, _size, rva = struct.unpack_from("<III", data, directory + 12 * i)
        streams[kind] = rva
    if EXCEPTION not in streams:
        return None
    at = streams[EXCEPTION]
    (tid,) = struct.unpack_from("<I", data, at)
    number, code, _record, address = struct.unpack_from("<IIQQ", data, at + 8)
    _context_size, context = struct.unpack_from("<II", data, at + 8 + 152)
    (rip,) = struct.unpack_from("<Q", data, context + RIP)
    names = {}
    if THREAD_NAMES in streams:
        (n,) = struct.unpack_from("<I", data, streams[THREAD_NAMES])
        for i in range(n):
            thread_id, name_rva = struct.unpack_from("<IQ", data, streams[THREAD_NAMES] + 4 + 12 * i)
            names[thread_id] = _utf16(data, name_rva)
    where = f"{rip:#x}"
    if MODULE_LIST in streams:
        (n,) = struct.unpack_from("<I", data, streams[MODULE_LIST])
        for i in range(n):
            base, size, _, _, name_rva = struct.unpack_from("<QIIII", data, streams[MODULE_LIST] + 4 + 108 * i)
            if base <= rip < base + size:
                where = f"{Path(_utf16(data, name_rva)).name}+{rip - base:#x}"
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    detail = SEGV_CODES.get(code, str(code)) if name == "SIGSEGV" else str(code)
    return Crash(name, detail, address, names.get(tid, str(tid)), where)


def crash_dumps() -> Path:
    """Where Chromium's crash handler writes its minidumps: under the default profile's folder whatever profile the
    browser runs with (`--crash-dumps-dir` is not honoured there)."""
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "chromium" / "Crash Reports"


def crashes_since(when: float, folder: Path | None = None) -> list[str]:
    """One line per minidump written since `when` (a `time.time()`), oldest first: the crash's signal, address,
    thread and instruction (`minidump.read_crash`), and the dump's path."""
    root = folder or crash_dumps()
    dumps = []
    for path in root.glob("**/*.dmp"):
        try:
            written = path.stat().st_mtime
        except OSError:
            continue
        if written >= when:
            dumps.append((written, path))
    lines = []
    for _, path in sorted(dumps):
        try:
            crash = read_crash(path)
        except (OSError, struct.error) as exc:
            lines.append(f"unreadable ({exc}): {path}")
            continue
        lines.append(f"{crash.line() if crash else 'no exception recorded'}: {path}")
    return lines
