"""pysdc: statistical disclosure control measures, number-for-number with sdcMicro.

Native measures (no R needed)
-----------------------------
Information loss: :func:`d_utility`, :func:`il_correl`, :func:`il_variables`.
Disclosure risk: :func:`freq_calc`, :func:`indiv_risk`, :func:`measure_risk`,
:func:`ldiversity`.

The measures, their result classes and ``__all__`` follow the one registry
:mod:`pysdc._registry`. The same functions executed by sdcMicro itself live in
:mod:`pysdc.r` (importing it does not start R). ``import pysdc`` never imports rpy2.
"""

from ._errors import (
    CoercionWarning,
    DegenerateResultWarning,
    InvalidParameterError,
    PysdcError,
    PysdcWarning,
    RCallError,
    RNotAvailableError,
    RWarning,
)
from ._registry import MEASURES as _MEASURES
from ._registry import public_names as _public_names
from .datasets import load_demo, load_demo_pair

__version__ = "0.1.0"

# every measure of the registry and its result class, as pysdc.<name>
globals().update({m.python: m.native for m in _MEASURES})
globals().update({m.result.__name__: m.result for m in _MEASURES if m.result not in (float, int)})

__all__ = [
    *_public_names(),
    "load_demo",
    "load_demo_pair",
    "PysdcError",
    "InvalidParameterError",
    "RNotAvailableError",
    "RCallError",
    "PysdcWarning",
    "DegenerateResultWarning",
    "CoercionWarning",
    "RWarning",
    "__version__",
]
