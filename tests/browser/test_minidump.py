"""The crash dump reader of the browser tests' reports (scripts/minidump.py), on a minidump written
here by the format's rules: what a crashed renderer's dump holds, in the places it holds it."""

from __future__ import annotations

import os
import struct
import time

from scripts.minidump import EXCEPTION, MODULE_LIST, RIP, THREAD_NAMES, crashes_since, read_crash

BASE, RIP_AT = 0x55D160000000, 0x9C6674D


def utf16(text: str) -> bytes:
    raw = text.encode("utf-16-le")
    return struct.pack("<I", len(raw)) + raw


def dump(thread_id: int = 11346, signal_number: int = 11, code: int = 2, address: int = 0x2B39E147A000) -> bytes:
    """A minidump with a crash on thread `thread_id` in the module /usr/lib/chromium/chromium; thread 11346 is
    named "chromium" (a renderer's main thread), others have no name."""
    body = bytearray()

    def put(data: bytes) -> int:
        at = 32 + 3 * 12 + len(body)
        body.extend(data)
        return at

    context = put(bytes(RIP) + struct.pack("<Q", BASE + RIP_AT) + bytes(64))
    exception = put(
        struct.pack("<II", thread_id, 0)
        + struct.pack("<IIQQII", signal_number, code, 0, address, 0, 0)
        + bytes(15 * 8)
        + struct.pack("<II", 0x4D0, context)
    )
    name = put(utf16("chromium"))
    threads = put(struct.pack("<I", 2) + struct.pack("<IQ", 7, name) + struct.pack("<IQ", 11346, name))
    module_name = put(utf16("/usr/lib/chromium/chromium"))
    modules = put(struct.pack("<I", 1) + struct.pack("<QIIII", BASE, 0x20000000, 0, 0, module_name) + bytes(108 - 24))
    directory = b"".join(
        struct.pack("<III", kind, 0, rva)
        for kind, rva in ((EXCEPTION, exception), (THREAD_NAMES, threads), (MODULE_LIST, modules))
    )
    header = struct.pack("<4sIII", b"MDMP", 0xA793, 3, 32) + bytes(16)
    return header + directory + bytes(body)


def test_a_renderer_crash_is_read_from_its_dump(tmp_path):
    path = tmp_path / "a.dmp"
    path.write_bytes(dump())
    crash = read_crash(path)
    assert crash is not None
    assert crash.line() == "SIGSEGV (SEGV_ACCERR) at 0x2b39e147a000, thread 'chromium', in chromium+0x9c6674d"


def test_what_is_no_crash_dump_says_so(tmp_path):
    other = tmp_path / "b.dmp"
    other.write_bytes(b"not a minidump")
    assert read_crash(other) is None
    abort = tmp_path / "c.dmp"
    abort.write_bytes(dump(signal_number=6, code=0, thread_id=99))
    crash = read_crash(abort)
    assert crash is not None and crash.line().startswith("SIGABRT (0) at") and "thread '99'" in crash.line()


def test_a_report_lists_the_dumps_written_since_the_test_began(tmp_path):
    old, new = tmp_path / "pending" / "old.dmp", tmp_path / "pending" / "new.dmp"
    old.parent.mkdir()
    old.write_bytes(dump())
    os.utime(old, (time.time() - 60, time.time() - 60))
    began = time.time() - 1
    new.write_bytes(dump(address=0x1000))
    (tmp_path / "pending" / "cut.dmp").write_bytes(b"MDMP" + bytes(8))
    lines = crashes_since(began, tmp_path)
    assert len(lines) == 2 and any("at 0x1000," in line and line.endswith("new.dmp") for line in lines)
    assert any(line.startswith("unreadable") and line.endswith("cut.dmp") for line in lines)
    assert crashes_since(began, tmp_path / "missing") == []
