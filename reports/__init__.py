"""Reports: self-contained HTML pages built from run folders (they read result files, never play games)."""
from __future__ import annotations

from .html import ReportError, build_index, build_report, read_run

__all__ = ["build_report", "build_index", "read_run", "ReportError"]
