"""Bit operations for compiled code, each one machine instruction where the processor has it.

numba has no public function for the index of an integer's lowest set bit or for its number of set bits,
so the engines used to look them up in tables (a load, which a game's rule steps wait on) or count them
by arithmetic. These are LLVM's own operations (``cttz``, ``ctpop``), which become ``tzcnt`` and
``popcnt`` on x86-64 processors that have them (numba compiles for the machine it runs on) and a short
sequence elsewhere; either way the results are exact.
"""
# sensei: no negative indices
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def trailing_zeros(typingctx, x):
    """The number of zero bits below the lowest set bit of the integer ``x``: the index of that bit (for
    ``x`` = 0, the width of its type)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of the integer ``x`` (of a negative ``x``, in its two's complement)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen
