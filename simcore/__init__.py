"""simcore: vectorized game engines and the batch runner (knows no strategy, experiment or report)."""
from . import compiled as _compiled  # noqa: F401  (numba's cache folder, before any kernel is defined)

__version__ = "0.1.0"
