"""What each measure of the assessment is, as the renderers say it: its call and a sentence on its meaning.

``MEASURE_INFO`` (sdcMicro's information-loss measures) and ``LITERATURE_INFO`` (the literature's)
map a measure of the ``pysdc-utility-1`` model to ``(call or citation, meaning)``.
"""

from __future__ import annotations

__all__ = ["MEASURE_INFO", "LITERATURE_INFO"]

MEASURE_INFO = {
    "IL1": ("dUtility(method = \"IL1\")",
            "sum over all cells of 100*|x - xm|/|x|: percent deviations added up (cells with x = 0 "
            "are left out). 0 = unchanged; grows with the number of cells."),
    "IL1s": ("dUtility(method = \"IL1s\")",
             "sum over all cells of |x - xm|/(sqrt(2)*sd(x)): deviations in standard deviations, "
             "added up. 0 = unchanged."),
    "eigen": ("dUtility(method = \"eigen\")",
              "sum of |e - em|/e over the eigenvalues of the covariance matrices of the standardised "
              "data: how much the correlation structure changed. 0 = unchanged."),
    "robeigen": ("dUtility(method = \"robeigen\")",
                 "as eigen, with the robust (MCD) covariance; MCD draws random subsets, so the value "
                 "depends on the seed (--random-state)."),
    "il_correl": ("IL_correl(x, xm)",
                  "distance between the normalised diagonals of the inverse correlation matrices, "
                  "between 0 (same) and 1."),
    "il_variables": ("IL_variables(x, xm)",
                     "lambda: mean distance per cell, between 0 (same) and 1; numeric cells "
                     "(2/pi)*atan|x - xm|, ordered categories |code difference|/(levels - 1), "
                     "other categories 0/1. Per variable: its distances summed / n."),
}

#: the literature's information-loss measures the utility report adds (not sdcMicro's)
LITERATURE_INFO = {
    "il_continuous": ("Domingo-Ferrer, Mateo-Sanz & Torra 2001; Yancey, Winkler & Creecy 2002; Todorova",
                      "continuous variables: GILCV (mean relative variation, %), Yancey, Winkler & Creecy's IL1 "
                      "(mean per cell) and the discrepancy table (MSE, MAE, mean variation of X, means, "
                      "covariances, correlations ...)."),
    "il_categorical": ("direct comparison, CTBIL, EBIL (Domingo-Ferrer & Torra 2001)",
                       "categorical variables: direct (share of changed values per variable), contingency-"
                       "table loss normalised, entropy-based loss EBIL per variable."),
    "il_entropy": ("entropy-based information loss (Kooiman, Willenborg & Gouweleeuw 1998)",
                   "categorical variables: the conditional entropy of the original given the masked values, "
                   "per variable; the value is its mean over the variables. 0 = unchanged."),
    "hellinger": ("Hellinger distance (Todorova)",
                  "distance between each variable's distributions in ORIGINAL and MASKED, 0 (same) to 1; "
                  "GHD is their mean."),
    "gsil": ("Todorova's general score of information loss",
             "(EBIL% + GHD% + GILCV) / 3 over the parts that apply, with its band."),
}
