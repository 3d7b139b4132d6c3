"""``python -m pysdc._registry``: the docs' name table (``--r-names``: sdcMicro's names)."""

import sys

from . import main

sys.exit(main())
