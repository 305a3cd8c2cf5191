"""Preloaded in every worker process of a local dask cluster (``--backend dask`` without a scheduler).

Ctrl-C in a terminal reaches the whole process group: the command's own process stops the run and closes
the cluster, so a worker leaves it alone instead of printing a traceback as the interrupt lands in its
event loop, as the local backends' workers do (``simcore.runner._worker_ignores_ctrl_c``)."""
import signal


def dask_setup(worker) -> None:  # noqa: ARG001 - dask's preload hook
    signal.signal(signal.SIGINT, signal.SIG_IGN)
