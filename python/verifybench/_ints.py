"""Integers on their way to the C ABI. ctypes keeps the low bits of an int that does not fit
its field (2**32 + 132 becomes 132 in an int32), so every integer is checked here first, and a
refusal is a VerifyError that names the argument."""
import math
import operator

from .errors import VerifyError

INT32 = (-2**31, 2**31 - 1)
INT64 = (-2**63, 2**63 - 1)
UINT64 = (0, 2**64 - 1)
_TYPE_NAMES = {INT32: "32-bit integer", INT64: "64-bit integer", UINT64: "unsigned 64-bit integer"}


def c_int(name, value, c_range=INT32, low=None):
    """`value` as a Python int within `c_range` (a C type's range) and at least `low` when given.
    Accepts ints and integer-like objects (NumPy integers: operator.index), never bool, float
    or text."""
    lo, hi = c_range
    what = f"a {_TYPE_NAMES[c_range]} ({lo}..{hi})" if low is None else f"an integer in {low}..{hi}"
    if isinstance(value, bool):
        raise VerifyError(f"{name}: {value!r}; allowed: {what}")
    try:
        number = operator.index(value)
    except TypeError:
        raise VerifyError(f"{name}: {value!r} ({type(value).__name__}); allowed: {what}") from None
    if not lo <= number <= hi or (low is not None and number < low):
        raise VerifyError(f"{name}: {number}; allowed: {what}")
    return number


def as_list(name, values):
    """The items of any iterable but text; VerifyError when `values` is not one."""
    if isinstance(values, (str, bytes)):
        raise VerifyError(f"{name}: {values!r}; allowed: a sequence of integers")
    try:
        return list(values)
    except TypeError:
        raise VerifyError(f"{name}: {values!r} ({type(values).__name__}); allowed: a sequence of integers") from None


def c_ints(name, values, c_range=INT32, low=None):
    """A list of c_int()s, one per item of `values`."""
    return [c_int(f"{name}[{i}]", v, c_range, low) for i, v in enumerate(as_list(name, values))]


def positive_finite(name, value):
    """`value` as a float, finite and above 0 (sm_scale)."""
    if isinstance(value, bool):
        raise VerifyError(f"{name}: {value!r}; allowed: a finite number above 0")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise VerifyError(f"{name}: {value!r} is not a number; allowed: a finite number above 0") from None
    if not (math.isfinite(number) and number > 0):
        raise VerifyError(f"{name}: {number!r}; allowed: a finite number above 0")
    return number
