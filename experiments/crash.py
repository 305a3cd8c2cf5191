"""One line instead of a silent crash in compiled code.

Compiled code indexes arrays without checking their bounds, so a compiled strategy that indexes out of
range can end the process with a segmentation fault (or a bus error), or a write out of range can spoil
the memory allocator's records, which then aborts the process (glibc prints, for example, ``free():
invalid next size``): without this module, exit status 139 or 134 and nothing more. :func:`install`
(called by the command line before it plays, never by the Python API) sets handlers for SIGSEGV, SIGBUS
and SIGABRT that write one line to stderr and end the process with exit status 1. The handler is itself compiled (a numba ``cfunc``, cached like the engines; this module
is imported only to install it) and calls only ``write`` and ``_exit``, which are safe in a signal
handler; Python cannot run there.
"""
from __future__ import annotations

import ctypes
import faulthandler
import os
import signal

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

import simcore.compiled  # noqa: F401 - the project's cache folder, before numba caches anything

MESSAGE = (b"error: sensei crashed in compiled code (a segmentation fault, bus error or abort); the usual cause is a "
           b"compiled strategy that indexes an array outside its bounds: run the same command again with "
           b"NUMBA_BOUNDSCHECK=1 (or sensei check with --bounds) to have it named\n")
#: the line under an address-space limit (``ulimit -v``), where the libraries' own allocations (polars' Rust
#: runtime, OpenBLAS) abort the process when the system refuses them
MESSAGE_LIMITED = (b"error: sensei crashed (a segmentation fault, bus error or abort) under an address-space limit "
                   b"(ulimit -v): most likely out of memory, so raise the limit; else a compiled strategy that "
                   b"indexes an array outside its bounds: run the same command again with NUMBA_BOUNDSCHECK=1 (or "
                   b"sensei check with --bounds) to have it named\n")
#: the exit status after a crash (as for a worker process that stopped; see docs/cli.md, "Exit status")
STATUS = 1

_LINE = np.frombuffer(MESSAGE, dtype=np.uint8).copy()   # a global array: compiled into the handler as data
_LINE_LIMITED = np.frombuffer(MESSAGE_LIMITED, dtype=np.uint8).copy()
_installed: dict = {"on": False}


#: the line and exit status of a command that keeps nothing (``check``, ``trace``) stopped by Ctrl-C or SIGTERM
INTERRUPTED, INTERRUPTED_STATUS = b"interrupted\n", 130
_INTERRUPTED = np.frombuffer(INTERRUPTED, dtype=np.uint8).copy()


@intrinsic
def _say_and_exit(typingctx, line, status):
    """``write(2, line, len(line)); _exit(status)``: the two calls a signal handler may make."""
    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i32, i64, i8p = ir.IntType(32), ir.IntType(64), ir.IntType(8).as_pointer()
        write = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, (i32, i8p, i64)), "write")
        leave = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), (i32,)), "_exit")
        builder.call(write, (ir.Constant(i32, 2), builder.bitcast(ary.data, i8p), ary.nitems))
        builder.call(leave, (builder.trunc(args[1], i32),))
        return context.get_dummy_value()
    return types.void(line, status), codegen


@numba.cfunc(types.void(types.int32), cache=True)
def _on_crash(signum):
    _say_and_exit(_LINE, STATUS)


@numba.cfunc(types.void(types.int32), cache=True)
def _on_crash_limited(signum):
    _say_and_exit(_LINE_LIMITED, STATUS)


@numba.cfunc(types.void(types.int32), cache=True)
def _on_interrupt(signum):
    _say_and_exit(_INTERRUPTED, INTERRUPTED_STATUS)


def install() -> bool:
    """Set the handlers (once per process). Not where Python's own crash dumps were asked for
    (``PYTHONFAULTHANDLER``, ``-X faulthandler``), nor off POSIX systems. Returns whether they are set."""
    if _installed["on"]:
        return True
    if os.name != "posix" or faulthandler.is_enabled():
        return False
    from simcore.runner import address_space_limited

    handler = _on_crash_limited if address_space_limited() else _on_crash
    if not _set_handler((signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT), handler):
        return False
    _installed["on"] = True
    return True


def _set_handler(signals, handler) -> bool:
    """Make the compiled ``handler`` the C-level handler of ``signals`` (libc's ``signal``); whether it could.
    Without it a signal is handled as it was: nothing else changes."""
    try:
        libc = ctypes.CDLL(None)
        libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
        libc.signal.restype = ctypes.c_void_p
        for sig in signals:
            libc.signal(int(sig), ctypes.c_void_p(handler.address))
    except Exception:  # noqa: BLE001
        return False
    return True


def install_interrupt() -> bool:
    """For a command that keeps nothing it would lose (``check``, ``trace``): Ctrl-C and SIGTERM end the
    process at once with the line ``interrupted`` and exit status 130, also while a compiled decision
    loops for ever (a Python handler would wait for the loop to return, which it never does). Only on
    POSIX systems; returns whether the handlers are set."""
    return os.name == "posix" and _set_handler((signal.SIGINT, signal.SIGTERM), _on_interrupt)
