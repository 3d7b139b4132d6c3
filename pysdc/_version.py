"""pysdc's version (a leaf: modules that need it import it here, never the package ``__init__``)."""

__version__ = "0.1.0"

#: the sdcMicro version whose numbers pysdc reproduces (its stored reference corpus, r_reference/, was generated with it)
REFERENCE_SDCMICRO_VERSION = "5.8.0"
