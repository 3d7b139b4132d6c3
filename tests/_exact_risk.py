"""Franconi & Polettini's exact individual risk in high-precision decimal arithmetic: the truth the float64
evaluations are judged against (Python's decimal module, no third-party package)."""

from __future__ import annotations

from decimal import Decimal, localcontext


def exact_risk(fk: float, Fk: float, prec: int = 120) -> tuple[float, float]:
    """(risk, cancellation ratio), with the working precision raised until two precisions 60 digits
    apart agree to 30 digits (the cancellation grows without bound as Fk/fk nears 1)."""
    while True:
        a, ra = _series(fk, Fk, prec)
        b, rb = _series(fk, Fk, prec + 60)
        if abs(a - b) <= Decimal("1e-30") * abs(b):
            return float(b), float(rb)
        prec *= 2


def _series(fk: float, Fk: float, prec: int):
    """(risk, cancellation ratio) for integer fk > 2 and the double pk = fk / Fk, taken exactly.

    The series is sdcMicro's formula, ``(p/(1-p))**f * (A*(1 + sum_m (-1)**(m+1) prod_{i<=m} B_i)
    + (-1)**f * log p)``, evaluated with ``prec`` significant digits. The ratio is the largest term of the bracket over the
    absolute value of the bracket, the factor by which float64's rounding is magnified.
    """
    f = int(fk)
    assert f == fk and f > 2
    with localcontext() as ctx:
        ctx.prec = prec
        p = Decimal(fk / Fk)  # the double pk, exactly
        A = (p ** (1 - f) - 1) / (f - 1)
        bb, b, big = Decimal(0), Decimal(1), abs(A)
        for i in range(f - 2):
            b *= Decimal((f - 1 - i) ** 2) / ((i + 1) * (f - 2 - i)) * (p ** (i + 2 - f) - 1) / (p ** (i + 1 - f) - 1)
            bb += (-1) ** (i + 1) * b
            big = max(big, abs(A * b))
        drei = (-1) ** f * p.ln()
        total = A * (1 + bb) + drei
        big = max(big, abs(drei))
        return (p / (1 - p)) ** f * total, big / abs(total)


def exact_risk_small(fk: float, Fk: float, prec: int = 120) -> float:
    """sdcMicro's closed forms for fk = 1 and 2 in decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = prec
        p = Decimal(fk / Fk)
        q = p / (1 - p)
        if fk == 1:
            return float(q * (1 / p).ln())
        return float(q - q * q * (1 / p).ln())
