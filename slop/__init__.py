"""slop: a terminal coding agent with transparent, SQL-backed context management."""

__version__ = "0.1.0"
__all__ = ["__version__"]
