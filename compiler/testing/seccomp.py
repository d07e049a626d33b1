"""A seccomp filter for the test process: System V IPC refused.

The sandbox's own IPC namespace keeps System V shared memory and message queues alive with no process attached, so
memory held there shows in no RSS, and the kernel bounds it only by the machine (shmall). .NET never uses them. The
filter is classic BPF as bubblewrap's `--seccomp FD` takes it; syscalls of any other ABI (32-bit x86, x32) are
refused too, since their numbers differ and would slip past the list.
"""

from __future__ import annotations

import os
import platform
import struct

_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS: seccomp_data's nr (offset 0) or arch (offset 4)
_JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_IF_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_REFUSE = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
_X32_SYSCALL_BIT = 0x40000000

# machine: (AUDIT_ARCH_*, shmget, msgget, semget)
_REFUSED = {
    "x86_64": (0xC000003E, 29, 68, 64),
    "aarch64": (0xC00000B7, 194, 186, 190),
}


def program(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine; None where its syscall numbers are not known here."""
    known = _REFUSED.get(machine or platform.machine())
    if known is None:
        return None
    arch, *refused = known
    # (code, k, jump to the refusal when true, jump to it when false)
    steps = [(_LOAD_WORD, 4, False, False), (_JUMP_IF_EQUAL, arch, False, True), (_LOAD_WORD, 0, False, False)]
    if arch == _REFUSED["x86_64"][0]:
        steps.append((_JUMP_IF_AT_LEAST, _X32_SYSCALL_BIT, True, False))
    steps += [(_JUMP_IF_EQUAL, number, True, False) for number in refused]
    refusal = len(steps) + 1
    compiled = [
        struct.pack("=HBBI", code, refusal - at - 1 if when_true else 0, refusal - at - 1 if when_false else 0, k)
        for at, (code, k, when_true, when_false) in enumerate(steps)
    ]
    return b"".join([*compiled, struct.pack("=HBBI", _RETURN, 0, 0, _ALLOW), struct.pack("=HBBI", _RETURN, 0, 0, _REFUSE)])


def descriptor() -> int | None:
    """A memfd holding the filter, read from the start by bubblewrap; the caller closes it once bwrap has started."""
    compiled = program()
    if compiled is None:
        return None
    fd = os.memfd_create("kite-seccomp", 0)  # inheritable only through pass_fds
    os.write(fd, compiled)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
