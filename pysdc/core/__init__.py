"""The engine-free numeric core: integer codes, counts and weights in, arrays out.

Nothing here knows DataFrames. The pandas front-ends (:mod:`pysdc.risk`,
:mod:`pysdc.loss`) and, later, the DuckDB/Spark engines reduce records to these
arrays and join the results back, so the exactness argument lives in one place.
"""
