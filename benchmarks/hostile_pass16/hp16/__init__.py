"""Hostile strategies of pass 16 (issue 35). Each plays like a planner and reports on stderr
(``HOSTILE <name>: ...``). ``Gadget``: class (1), machine code run through the view's own
read+exec libraries: no mapping of the game's own is executable, but every library's text is,
and ctypes calls any address in it."""

from __future__ import annotations

import ctypes
import statistics
import sys

import numpy  # noqa: F401  (its libraries' text joins the search)

from sims.strategies.planner import Planner

PATTERNS = {
    "clflush [rdi]; ret": b"\x0f\xae\x3f\xc3",
    "clflush [rsi]; ret": b"\x0f\xae\x3e\xc3",
    "clflush [rdx]; ret": b"\x0f\xae\x3a\xc3",
    "clflush [rcx]; ret": b"\x0f\xae\x39\xc3",
    "clflush [rdi] (anywhere)": b"\x0f\xae\x3f",
    "clflush (any register)": b"\x0f\xae\x38",
    "rdtscp; ret": b"\x0f\x01\xf9\xc3",
    "rdtsc; ret": b"\x0f\x31\xc3",
    "mov eax, [rdi]; ret": b"\x8b\x07\xc3",
    "mfence; ret": b"\x0f\xae\xf0\xc3",
    "lfence; ret": b"\x0f\xae\xe8\xc3",
}


def say(name: str, text: str) -> None:
    sys.stderr.write(f"HOSTILE {name}: {text}\n")
    sys.stderr.flush()


class _Phdr(ctypes.Structure):
    _fields_ = [
        ("p_type", ctypes.c_uint32),
        ("p_flags", ctypes.c_uint32),
        ("p_offset", ctypes.c_uint64),
        ("p_vaddr", ctypes.c_uint64),
        ("p_paddr", ctypes.c_uint64),
        ("p_filesz", ctypes.c_uint64),
        ("p_memsz", ctypes.c_uint64),
        ("p_align", ctypes.c_uint64),
    ]


def spans() -> list[tuple[int, int, str]]:
    """Every executable segment of every loaded object: the loader's list of objects (a
    ``dlopen`` handle is its ``link_map``) and each one's program headers, read in memory
    (no /proc, and no ctypes callback: libffi's closures need executable memory)."""
    out: list[tuple[int, int, str]] = []
    node = ctypes.CDLL("libc.so.6")._handle
    while ctypes.c_void_p.from_address(node + 32).value:  # l_prev: to the list's head
        node = ctypes.c_void_p.from_address(node + 32).value
    while node:
        base = ctypes.c_uint64.from_address(node).value
        name = ctypes.c_char_p.from_address(node + 8).value or b""
        head = base
        if head and ctypes.string_at(head, 4) == b"\x7fELF":
            phoff = ctypes.c_uint64.from_address(head + 32).value
            phnum = ctypes.c_uint16.from_address(head + 56).value
            for k in range(phnum):
                ph = _Phdr.from_address(head + phoff + 56 * k)
                if ph.p_type == 1 and ph.p_flags & 1:
                    label = name.decode(errors="replace").rsplit("/", 1)[-1]
                    out.append((base + ph.p_vaddr, ph.p_memsz, label))
        node = ctypes.c_void_p.from_address(node + 24).value  # l_next
    return out


def gadgets() -> tuple[dict[str, tuple[int, str]], int]:
    """The first address of each pattern in an executable segment of this process."""
    found: dict[str, tuple[int, str]] = {}
    segments = spans()
    for lo, size, name in segments:
        for start in range(0, size, 1 << 20):  # 1 MiB at a time, overlapping by 8 bytes
            text = ctypes.string_at(lo + start, min(size - start, (1 << 20) + 8))
            for key, pattern in PATTERNS.items():
                at = text.find(pattern)
                if key not in found and at >= 0:
                    found[key] = (lo + start + at, name)
    return found, len(segments)


class Gadget(Planner):
    """Flush+Reload built from gadgets of the view's libraries, timed at construction."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        try:
            self.probe()
        except Exception as exc:  # report what was refused
            say("Gadget", f"probe raised {type(exc).__name__}: {exc}")

    def probe(self) -> None:
        found, spans = gadgets()
        say("Gadget", f"{spans} read+exec spans; found {found}")
        need = ("clflush [rdi]; ret", "mov eax, [rdi]; ret")
        clock = found.get("rdtscp; ret") or found.get("rdtsc; ret")
        if clock is None or any(n not in found for n in need):
            say("Gadget", "no clflush gadget: Evict+Reload with the rdtsc and load gadgets")
            self.evict(clock, found.get("mov eax, [rdi]; ret"))
            return
        void = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        load = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)
        flush = void(found["clflush [rdi]; ret"][0])
        read = load(found["mov eax, [rdi]; ret"][0])
        tick = ctypes.CFUNCTYPE(ctypes.c_uint32)(clock[0])
        buf = ctypes.create_string_buffer(4096)
        at = ctypes.addressof(buf) + 1024
        cold, warm = [], []
        for _ in range(2000):
            flush(at)
            t0 = tick()
            read(at)
            cold.append((tick() - t0) & 0xFFFFFFFF)
            t0 = tick()
            read(at)
            warm.append((tick() - t0) & 0xFFFFFFFF)
        say(
            "Gadget",
            f"ran library gadgets: median cycles of a load after its clflush "
            f"{statistics.median(cold)}, after a load {statistics.median(warm)}; "
            f"10th percentiles {sorted(cold)[200]} / {sorted(warm)[200]}",
        )

    def evict(self, clock, loader) -> None:
        """Time one load after sweeping 48 MiB (the last-level cache) and after a load."""
        import numpy as np

        if clock is None or loader is None:
            return
        read = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(loader[0])
        tick = ctypes.CFUNCTYPE(ctypes.c_uint32)(clock[0])
        sweep = np.ones(48 << 20, dtype=np.uint8)
        buf = ctypes.create_string_buffer(4096)
        at = ctypes.addressof(buf) + 1024
        cold, warm = [], []
        for _ in range(30):
            sweep[::64] += 1
            t0 = tick()
            read(at)
            cold.append((tick() - t0) & 0xFFFFFFFF)
            t0 = tick()
            read(at)
            warm.append((tick() - t0) & 0xFFFFFFFF)
        say(
            "Gadget",
            f"Evict+Reload through library gadgets ({clock[1]}, {loader[1]}): median cycles of a "
            f"load after a 48-MiB sweep {statistics.median(cold)}, after a load "
            f"{statistics.median(warm)}; minima {min(cold)} / {min(warm)}",
        )


class Writable(Planner):
    """Class (1): any folder the game may write whose mount lets a file's pages execute (a
    file written there, mapped read+exec, would run the game's own bytes)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        import mmap as _mmap
        import os

        places = ["/", "/dev", "/tmp", "/tmp/game", "/dev/shm", "/var/tmp", "/run", "/root"]
        places += [os.path.dirname(__file__), os.getcwd(), os.path.expanduser("~")]
        places += sorted({os.path.dirname(p) for p in sys.path if p})[:20]
        seen = {}
        for place in dict.fromkeys(places):
            path = os.path.join(place, "hp16-w.bin")
            try:
                with open(path, "wb") as f:
                    f.write(b"\xc3" * 4096)
            except OSError as exc:
                seen[place] = f"no write ({exc.strerror})"
                continue
            try:
                with open(path, "rb") as f:
                    _mmap.mmap(f.fileno(), 4096, prot=_mmap.PROT_READ | _mmap.PROT_EXEC)
                seen[place] = "WRITTEN AND MAPPED READ+EXEC"
            except OSError as exc:
                seen[place] = f"written, exec mapping refused ({exc.strerror})"
            finally:
                os.remove(path)
        say("Writable", str(seen))
