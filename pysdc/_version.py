"""pysdc's version (a leaf: modules that need it import it here, never the package ``__init__``)."""

__version__ = "0.1.0"
