"""How the compiled kernels of sensei are built (numba).

Rule steps and decision functions take a dozen or more state arrays. numba counts references to
arrays with atomic operations, and in a branchy game loop those counts cost several times the rules
themselves (4x in Sen's game loop, measured). Kernels that allocate nothing are therefore compiled
with reference counting off (numba's ``_nrt=False`` target option) and get their scratch space from
the caller. That option is not in numba's public documentation; should a numba release no longer know
it, the same kernels are compiled with reference counting: slower, with the same results.
"""
from __future__ import annotations

try:
    from numba.core.options import DefaultOptions

    _HAS_NRT_OPTION = hasattr(DefaultOptions, "_nrt")
except (ImportError, AttributeError):  # pragma: no cover - depends on the numba release
    _HAS_NRT_OPTION = False

#: ``numba.njit(**NO_REFCOUNT)``: a cached kernel without reference counting (it must not allocate)
NO_REFCOUNT: dict = {"cache": True, "_nrt": False} if _HAS_NRT_OPTION else {"cache": True}
