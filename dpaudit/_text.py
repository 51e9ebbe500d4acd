"""Words for people: a count with its noun in the right number ("1 pair", "2 pairs")."""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` followed by ``noun`` in the number ``n`` asks for.

    Parameters
    ----------
    n : int
        The count (only exactly 1 is singular: "0 pairs", "1 pair", "2 pairs").
    noun : str
        The singular noun, e.g. ``"pair"`` or ``"catalogue entry"``.
    plural : str, optional
        The plural where it is not ``noun + "s"`` (an ``-y`` after a consonant becomes ``-ies``).

    Examples
    --------
    >>> counted(1, "pair"), counted(2, "pair"), counted(1, "catalogue entry"), counted(3, "catalogue entry")
    ('1 pair', '2 pairs', '1 catalogue entry', '3 catalogue entries')
    """
    if n == 1:
        return f"{n} {noun}"
    if plural is None:
        plural = noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"
    return f"{n} {plural}"
