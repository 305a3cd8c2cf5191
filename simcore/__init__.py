"""simcore: vectorized game engines and the batch runner (knows no strategy, experiment or report)."""
__version__ = "0.1.0"
