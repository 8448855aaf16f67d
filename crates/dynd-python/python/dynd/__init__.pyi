"""Type stubs of the dynd package (written by `python -m dynd._stubs`)."""

from typing import Any, Iterator, Sequence

ArrayLike = Any

class DyndError(ValueError): ...
class DyndTypeError(DyndError, TypeError): ...
class DyndIndexError(DyndError, IndexError): ...

class Array:
    """A dynd array: a datashape type, its arrmeta and its data."""

    def __init__(self, obj: ArrayLike, type: str | None = None) -> None: ...
    @property
    def type(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def ndim(self) -> int: ...
    @property
    def shape(self) -> tuple[int | None, ...]: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Array]: ...
    def __getitem__(self, key: Any) -> Array: ...
    def __getattr__(self, name: str) -> Array: ...
    def tolist(self) -> Any: ...
    def item(self) -> Any: ...
    def cast(self, type: str, errmode: str = "default") -> Array: ...
    def __float__(self) -> float: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def __add__(self, o: ArrayLike) -> Array: ...
    def __radd__(self, o: ArrayLike) -> Array: ...
    def __sub__(self, o: ArrayLike) -> Array: ...
    def __rsub__(self, o: ArrayLike) -> Array: ...
    def __mul__(self, o: ArrayLike) -> Array: ...
    def __rmul__(self, o: ArrayLike) -> Array: ...
    def __truediv__(self, o: ArrayLike) -> Array: ...
    def __rtruediv__(self, o: ArrayLike) -> Array: ...
    def __floordiv__(self, o: ArrayLike) -> Array: ...
    def __rfloordiv__(self, o: ArrayLike) -> Array: ...
    def __mod__(self, o: ArrayLike) -> Array: ...
    def __rmod__(self, o: ArrayLike) -> Array: ...
    def __pow__(self, o: ArrayLike) -> Array: ...
    def __rpow__(self, o: ArrayLike) -> Array: ...
    def __and__(self, o: ArrayLike) -> Array: ...
    def __rand__(self, o: ArrayLike) -> Array: ...
    def __or__(self, o: ArrayLike) -> Array: ...
    def __ror__(self, o: ArrayLike) -> Array: ...
    def __xor__(self, o: ArrayLike) -> Array: ...
    def __rxor__(self, o: ArrayLike) -> Array: ...
    def __lshift__(self, o: ArrayLike) -> Array: ...
    def __rlshift__(self, o: ArrayLike) -> Array: ...
    def __rshift__(self, o: ArrayLike) -> Array: ...
    def __rrshift__(self, o: ArrayLike) -> Array: ...
    def __lt__(self, o: ArrayLike) -> Array: ...
    def __le__(self, o: ArrayLike) -> Array: ...
    def __gt__(self, o: ArrayLike) -> Array: ...
    def __ge__(self, o: ArrayLike) -> Array: ...
    def __eq__(self, o: ArrayLike) -> Array: ...  # type: ignore[override]
    def __ne__(self, o: ArrayLike) -> Array: ...  # type: ignore[override]
    def __neg__(self) -> Array: ...
    def __pos__(self) -> Array: ...
    def __abs__(self) -> Array: ...
    def __invert__(self) -> Array: ...
    def sum(self, *args: Any, **kwargs: Any) -> Array: ...
    def prod(self, *args: Any, **kwargs: Any) -> Array: ...
    def mean(self, *args: Any, **kwargs: Any) -> Array: ...
    def std(self, *args: Any, **kwargs: Any) -> Array: ...
    def var(self, *args: Any, **kwargs: Any) -> Array: ...
    def min(self, *args: Any, **kwargs: Any) -> Array: ...
    def max(self, *args: Any, **kwargs: Any) -> Array: ...
    def argmin(self, *args: Any, **kwargs: Any) -> Array: ...
    def argmax(self, *args: Any, **kwargs: Any) -> Array: ...
    def any(self, *args: Any, **kwargs: Any) -> Array: ...
    def all(self, *args: Any, **kwargs: Any) -> Array: ...
    def cumsum(self, *args: Any, **kwargs: Any) -> Array: ...
    def cumprod(self, *args: Any, **kwargs: Any) -> Array: ...
    def sort(self, *args: Any, **kwargs: Any) -> Array: ...
    def argsort(self, *args: Any, **kwargs: Any) -> Array: ...
    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any: ...
    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[object, object]: ...
    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> object: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...
    def __buffer__(self, flags: int) -> memoryview: ...

class Function:
    """A dynd function: it broadcasts over its arguments, ragged ones included."""

    @property
    def __name__(self) -> str: ...
    @property
    def signatures(self) -> list[str]: ...
    def __call__(self, *args: ArrayLike, **kwargs: Any) -> Array: ...
    def reduce(self, x: ArrayLike, **kwargs: Any) -> Array: ...
    def accumulate(self, x: ArrayLike, **kwargs: Any) -> Array: ...
    def outer(self, *args: ArrayLike) -> Array: ...

__version__: str

def array(obj: ArrayLike, type: str | None = None) -> Array: ...
def asarray(obj: ArrayLike, type: str | None = None) -> Array: ...
def evaluate(
    ex: str,
    local_dict: dict[str, Any] | None = None,
    global_dict: dict[str, Any] | None = None,
    out: Any = None,
    **inputs: ArrayLike,
) -> Array: ...
def builtins() -> list[str]: ...
def to_numpy(x: Array) -> Any: ...
def to_arrow(x: Array) -> Any: ...
def to_awkward(x: Array) -> Any: ...
def type_of(text: str) -> str: ...
def register_ufunc(ufunc: Any, function: Any) -> None: ...

# The builtins (one `Function` each).
abs: Function  # `(T) -> T` for every numeric `T`; `abs` of complex is real; integers
absolute: Function  # `absolute`: the same function as `abs` (NumPy's name).
add: Function  # `(T, T) -> T` for every integer (`int8`…`int128`, `uint8`…`uint128`),
all: Function  # `(Any, axis: ?Any, keepdims: ?bool, where: ?Any, skip_na: ?bool) ->
angle: Function  # `(complex[T]) -> T`: the argument `atan2(im, re)` in radians;
any: Function  # As `all`: whether any element is true.
arange: Function  # `arange`: the same function as `range` (NumPy's name).
arccos: Function  # `(T) -> T` for floats and complex: the inverse cosine.
arccosh: Function  # `(T) -> T` for floats and complex: the inverse hyperbolic cosine
arcsin: Function  # `(T) -> T` for floats and complex: the inverse sine (complex: the
arcsinh: Function  # `(T) -> T` for floats and complex: the inverse hyperbolic sine.
arctan: Function  # `(T) -> T` for floats and complex: the inverse tangent (complex:
arctan2: Function  # `(T, T) -> T` for floats: the angle of the point `(b, a)`.
arctanh: Function  # `(T) -> T` for floats and complex: the inverse hyperbolic tangent
argmax: Function  # `(Any, axis: ?int64, keepdims: ?bool) -> Any`: the index of the
argmin: Function  # `(Any, axis: ?int64, keepdims: ?bool) -> Any`: the index of the
argsort: Function  # `(Any, axis: ?int64, ascending: ?bool) -> Any`: the indexes that sort
assume_timezone: Function  # `(Any, timezone: string, ambiguous: ?string, nonexistent: ?string)
bitwise_and: Function  # `(T, T) -> T` for `bool` (logical) and integers: `a & b`, the
bitwise_count: Function  # `(T) -> uint8` for integers: the number of 1 bits of `|x|` (NumPy 2's
bitwise_not: Function  # `bitwise_not`: the same function as `invert`.
bitwise_or: Function  # `(T, T) -> T` for `bool` and integers: `a | b`, the operator `|`.
bitwise_xor: Function  # `(T, T) -> T` for `bool` and integers: `a ^ b`, the operator `^`.
capitalize: Function  # `(string) -> string`: `str.capitalize`, the first character in
cast: Function  # `(Any, string, errmode: ?string) -> Any`: the argument converted to
categories: Function  # `(Any) -> Any`: the categories of a categorical array.
cbrt: Function  # `(T) -> T` for floats: the real cube root (`cbrt(-8) == -2`).
ceil: Function  # `(T) -> T`: floats: the smallest integer not below `x`; integers
ceil_temporal: Function  # As `floor_temporal`, up.
center: Function  # `(Any, width: int64, fillchar: ?string) -> Any`: `str.center`.
clip: Function  # `(T, lo: float64, hi: float64) -> T` for integers and floats: the
codes: Function  # `(Any) -> Any`: the codes of a categorical array (a view).
concatenate: Function  # `(Any, ..., axis: ?int64) -> Any`: the arrays joined along an
conj: Function  # `(complex[T]) -> complex[T]`: the complex conjugate; `(T) -> T` for
conjugate: Function  # `conjugate`: the same function as `conj`.
contains: Function  # `(string, string) -> bool`: whether the second string occurs in the
copysign: Function  # `(T, T) -> T` for floats: `x`'s magnitude with `y`'s sign.
cos: Function  # `(T) -> T` for floats and complex.
cosh: Function  # `(T) -> T` for floats and complex.
count: Function  # `(Any, axis: ?Any, keepdims: ?bool, where: ?Any) -> Any`: the number
count_nonzero: Function  # `(Any, axis: ?int64) -> Any`: how many elements are not zero, over
count_substring: Function  # `(Any, Any, start: ?int64, end: ?int64) -> Any`: NumPy's
cross: Function  # `(3 * T, 3 * T) -> 3 * T` for int32, int64, float32, float64: a
cumprod: Function  # As `cumsum`: the running product.
cumsum: Function  # `(Any, axis: ?int64) -> Any`: the running sum along one axis (the
day: Function  # `(date | datetime) -> int64`: the day of the month, 1 to 31.
day_of_week: Function  # `(date | datetime) -> int64`: the day of the week, Monday 0 to
day_of_year: Function  # `(date | datetime) -> int64`: the day of the year, 1 to 366.
days_between: Function  # `(Any, Any) -> Any`: the days boundaries from `a` to `b`
deg2rad: Function  # `(T) -> T` for floats: degrees to radians, `x * (π / 180)`.
degrees: Function  # `degrees`: the same function as `rad2deg`.
dictionary_encode: Function  # `(Any) -> Any`: the values dictionary-encoded (`categorical[T]`,
diff: Function  # `(Any, n: ?int64, axis: ?int64) -> Any`: the `n`-th difference (default
divide: Function  # `(T, T) -> T` for floats and complex; `(I, I) -> float64` for
dot: Function  # `(N * T, N * T) -> T` for int32, int64, uint64, float32, float64: the
endswith: Function  # `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.endswith`.
equal: Function  # `(T, T) -> bool` for every numeric `T`, complex included, and for
exp: Function  # `(T) -> T` for floats and complex (complex after C99 Annex G).
exp2: Function  # `(T) -> T` for floats and complex: `2^x`.
expandtabs: Function  # `(Any, tabsize: ?int64) -> Any`: `str.expandtabs` (8 columns
expm1: Function  # `(T) -> T` for floats and complex: `e^x - 1`, accurate near 0.
fabs: Function  # `(T) -> T` for floats: `|x|` (integers promote to a float, as in
field: Function  # `(Any, Scalar) -> Any`: field `name` (a string) of each record,
fill_na: Function  # `(Any, Any) -> Any`: NA replaced by the value (broadcast); the result
filter: Function  # `(Any, Any) -> Any`: the elements where a boolean array of the same
find: Function  # `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.find`, the
first: Function  # `(Any) -> Any`: the first value of each row, NA for an empty one.
flatten: Function  # `(Any, axis: ?int64, all: ?bool) -> Any`: one level flatter (`axis=1`,
flip: Function  # `(Any, axis: ?int64) -> Any`: reversed along `axis`, or every axis;
float_power: Function  # `(float64, float64) -> float64` and `(complex[float64],
floor: Function  # `(T) -> T`: floats: the largest integer not above `x` (`-0.0`,
floor_divide: Function  # `(T, T) -> T`: integers: floor division, division by zero gives 0 and
floor_temporal: Function  # `(Any, multiple: ?int64, unit: ?string, week_starts_monday: ?bool)
fmax: Function  # `(T, T) -> T` for integers, floats and complex (NumPy's order):
fmin: Function  # `(T, T) -> T` for integers, floats and complex: the smaller, a NaN
fmod: Function  # `(T, T) -> T` for integers and floats: C's remainder, with the
full: Function  # `(string, Any) -> Any`: an array of the named type filled with the
gcd: Function  # `(T, T) -> T` for integers: the greatest common divisor, never
greater: Function  # `(T, T) -> bool` for every numeric `T`, complex and strings as
greater_equal: Function  # `(T, T) -> bool` for every numeric `T`, complex and strings as
groupby: Function  # `(Any, Any) -> Any`: the values of each distinct key, one ragged
groupby_keys: Function  # `(Any) -> Any`: each group's key, as `groupby` orders the groups.
heaviside: Function  # `(T, T) -> T` for floats: 0 for `x < 0`, `h0` for `x == 0`, 1 for
hour: Function  # `(datetime | time) -> int64`: the hour, 0 to 23.
hours_between: Function  # `(Any, Any) -> Any`: the hours boundaries from `a` to `b`
hypot: Function  # `(T, T) -> T` for floats: `sqrt(x² + y²)` without overflow or
imag: Function  # `(complex[T]) -> T`: the imaginary part; `(T) -> T` for integers and
index: Function  # `(Any, ...) -> Any`: `x[i, j, ...]` with integers and slice strings
invert: Function  # `(T) -> T` for `bool` (logical not) and integers (every bit
is_leap_year: Function  # `(date | datetime) -> bool`: whether the year is a leap year.
is_na: Function  # `(Any) -> Any`: `bool`, true where an option array holds NA (false
isalnum: Function  # `(string) -> bool`: `str.isalnum`.
isalpha: Function  # `(string) -> bool`: `str.isalpha` (every character a letter, `L*`).
isdecimal: Function  # `(string) -> bool`: `str.isdecimal` (`Nd`, any script).
isdigit: Function  # `(string) -> bool`: `str.isdigit`.
isfinite: Function  # `(T) -> bool` for `bool`, integers (always true), floats and complex
isinf: Function  # `(T) -> bool` for `bool`, integers (always false), floats and complex
islower: Function  # `(string) -> bool`: `str.islower`.
isnan: Function  # `(T) -> bool` for `bool`, integers (always false), floats and complex
isneginf: Function  # `(T) -> bool` for floats: `x == -inf`.
isnumeric: Function  # `(string) -> bool`: `str.isnumeric`.
iso_week: Function  # `(date | datetime) -> int64`: the ISO 8601 week, 1 to 53.
iso_year: Function  # `(date | datetime) -> int64`: the ISO 8601 week-numbering year
isposinf: Function  # `(T) -> bool` for floats: `x == +inf`.
isspace: Function  # `(string) -> bool`: `str.isspace`.
istitle: Function  # `(string) -> bool`: `str.istitle`.
isupper: Function  # `(string) -> bool`: `str.isupper`.
join: Function  # `(Any, sep: ?string) -> Any`: the strings of each row of the last
kahan_sum: Function  # `(Any, axis: ?Any, keepdims: ?bool) -> Any`: a compensated float64
last: Function  # `(Any) -> Any`: the last value of each row, NA for an empty one.
lcm: Function  # `(T, T) -> T` for integers: the least common multiple, never
ldexp: Function  # `(T, int64) -> T` for floats: `x * 2^n`, rounded once (overflow to
left_shift: Function  # `(T, T) -> T` for integers: `a << b`, the operator `<<`; a negative
less: Function  # `(T, T) -> bool` for every numeric `T`; complex numbers in NumPy's
less_equal: Function  # `(T, T) -> bool` for every numeric `T`, complex and strings as
linspace: Function  # `(Scalar, Scalar, num: ?int64, endpoint: ?bool) -> Any`: `num`
ljust: Function  # `(Any, width: int64, fillchar: ?string) -> Any`: `str.ljust`.
local_index: Function  # `(Any) -> Any`: each element's index in its row, `int64`.
log: Function  # `(T) -> T` for floats and complex: the principal branch.
log10: Function  # `(T) -> T` for floats and complex: the base-10 logarithm.
log1p: Function  # `(T) -> T` for floats and complex: `log(1 + x)`, accurate near 0.
log2: Function  # `(T) -> T` for floats and complex: the base-2 logarithm.
log_softmax: Function  # `(Any, axis: ?int64) -> Any`: each row's log-softmax, stable.
logaddexp: Function  # `(T, T) -> T` for floats: `log(e^x + e^y)` without overflow
logaddexp2: Function  # `(T, T) -> T` for floats: `log2(2^x + 2^y)` without overflow.
logical_and: Function  # `(bool, bool) -> bool`, and `(T, T) -> bool` for numbers (each
logical_not: Function  # `(bool) -> bool`, and `(T) -> bool` for numbers (true where zero).
logical_or: Function  # `(bool, bool) -> bool`, and `(T, T) -> bool` for numbers, as
logical_xor: Function  # `(bool, bool) -> bool`, and `(T, T) -> bool` for numbers, as
logsumexp: Function  # `(Any, axis: ?int64) -> Any`: each row's log-sum-exp, stable.
lower: Function  # `(string) -> string`: `str.lower`, full case mapping (a final `Σ`
lstrip: Function  # `(Any, chars: ?string) -> Any`: `str.lstrip`; views.
matmul: Function  # `(M * N * T, N * P * T) -> M * P * T` for int32, int64, uint64,
max: Function  # As `sum`: the maximum (an empty reduction needs `initial`); of
maximum: Function  # `(T, T) -> T` for every numeric `T`: floats: NaN propagates;
mean: Function  # As `all`: the mean, `float64` for integers (the sum divided by the
microsecond: Function  # `(datetime | time) -> int64`: the microseconds in the millisecond,
microseconds_between: Function  # `(Any, Any) -> Any`: the microseconds boundaries from `a` to `b`
millisecond: Function  # `(datetime | time) -> int64`: the milliseconds in the second, 0 to 999.
milliseconds_between: Function  # `(Any, Any) -> Any`: the milliseconds boundaries from `a` to `b`
min: Function  # As `sum`: the minimum (an empty reduction needs `initial`). Of
minimum: Function  # `(T, T) -> T` for every numeric `T`: floats: NaN propagates;
minute: Function  # `(datetime | time) -> int64`: the minute, 0 to 59.
minutes_between: Function  # `(Any, Any) -> Any`: the minutes boundaries from `a` to `b`
mod: Function  # `mod`: the same function as `remainder` (NumPy's alias).
month: Function  # `(date | datetime) -> int64`: the month, 1 to 12.
multiply: Function  # `(T, T) -> T` for every integer, float and complex `T`; integers wrap;
nanosecond: Function  # `(datetime | time) -> int64`: the nanoseconds in the microsecond,
nanoseconds_between: Function  # `(Any, Any) -> Any`: the nanoseconds boundaries from `a` to `b`
negative: Function  # `(T) -> T` for every numeric `T`; integers wrap (`-int8(-128) == -128`).
nextafter: Function  # `(T, T) -> T` for floats: the next representable value after `x`
nonzero: Function  # `(Any) -> Any`: the indexes of the nonzero elements as a `ndim *
norm: Function  # `(N * T) -> T` for floats: Euclidean, scaled by the largest magnitude
not_equal: Function  # `(T, T) -> bool` for every numeric `T`, complex included, and for
null_count: Function  # `(Any, axis: ?Any, keepdims: ?bool) -> Any`: the number of NA
num: Function  # `(Any, axis: ?int64) -> Any`: the length of each row along `axis`
ones: Function  # `(string) -> Any`: an array of the named type filled with 1.
pad: Function  # `(Any, Any, clip: ?bool, fill: ?Any) -> Any`: rows padded to a
positive: Function  # `(T) -> T` for every numeric `T`: `+x`, a copy.
power: Function  # `(T, T) -> T`: integers wrap on overflow, for any exponent (square
prod: Function  # As `sum`: the product.
quarter: Function  # `(date | datetime) -> int64`: the quarter, 1 to 4.
quarters_between: Function  # `(Any, Any) -> Any`: the quarters boundaries from `a` to `b`
rad2deg: Function  # `(T) -> T` for floats: radians to degrees, `x * (180 / π)`.
radians: Function  # `radians`: the same function as `deg2rad`.
range: Function  # `(Scalar, ..., dtype: ?string) -> Any`: `range(stop)`,
real: Function  # `(complex[T]) -> T`: the real part; `(T) -> T` for integers and
reciprocal: Function  # `(T) -> T` for every numeric `T`: `1 / x`; integers: truncated
regex_extract: Function  # `(Any, Any, group: ?int64) -> Any`: the group of the first match,
regex_match: Function  # `(Any, Any) -> Any`: whether the pattern (one string, the `regex`
regex_replace: Function  # `(Any, Any, Any) -> Any`: every match of the pattern replaced (`$1`
regex_split: Function  # `(Any, Any) -> Any`: each string split at the pattern's matches:
remainder: Function  # `(T, T) -> T`: the remainder of `floor_divide`, with the divisor's
repeat: Function  # `(Any, Any, axis: ?int64) -> Any`: each element repeated (a count,
replace: Function  # `(Any, Any, Any, count: ?int64) -> Any`: `str.replace`, all three
reshape: Function  # `(Any, Any) -> Any`: a view where the strides allow, else a copy;
rfind: Function  # `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.rfind`.
right_shift: Function  # `(T, T) -> T` for integers: `a >> b` (arithmetic for signed
rint: Function  # `(T) -> T` for floats: to the nearest integer, halves to even
rjust: Function  # `(Any, width: int64, fillchar: ?string) -> Any`: `str.rjust`.
round: Function  # `(T, decimals: int64) -> T` for every integer, float and complex
round_temporal: Function  # As `floor_temporal`, to the nearer multiple.
rstrip: Function  # `(Any, chars: ?string) -> Any`: `str.rstrip`; views.
run_lengths: Function  # `(Any) -> Any`: the lengths of the runs of equal values (per row).
searchsorted: Function  # `(Any, Any, side: ?string) -> Any`: where each value would go in the
second: Function  # `(datetime | time) -> int64`: the second, 0 to 59.
seconds_between: Function  # `(Any, Any) -> Any`: the seconds boundaries from `a` to `b`
sign: Function  # `(T) -> T`: -1, 0 or 1 for integers and floats (NaN stays NaN,
signbit: Function  # `(T) -> bool` for floats: the sign bit (`signbit(-0.0)`, and of a
sin: Function  # `(T) -> T` for floats and complex.
sinh: Function  # `(T) -> T` for floats and complex (complex after C99 Annex G).
slice: Function  # `(Any, start: ?int64, stop: ?int64, step: ?int64) -> Any`:
softmax: Function  # `(Any, axis: ?int64) -> Any`: each row's softmax, stable.
sort: Function  # `(Any, axis: ?int64, ascending: ?bool) -> Any`: a sorted copy along
sorted: Function  # `(Any, axis: ?int64, reverse: ?bool) -> Any`: a sorted copy (stable,
spacing: Function  # `(T) -> T` for floats: the distance from `x` to the next value away
split: Function  # `(Any, ..., sep: ?string) -> Any`: each string split at `sep`
sqrt: Function  # `(T) -> T` for floats and complex: the principal square root;
square: Function  # `(T) -> T` for every numeric `T`: `x * x` (integers wrap).
stack: Function  # `(Any, ..., axis: ?int64) -> Any`: arrays of one shape joined along a
startswith: Function  # `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.startswith`.
std: Function  # As `var`: the standard deviation.
str_len: Function  # `(string) -> int64`: the length in code points (`len(s)`).
strftime: Function  # `(Any, format: ?string) -> Any`: the text of each date or datetime
string_length: Function  # `(string) -> int64`: `str_len`'s older name.
strip: Function  # `(Any, chars: ?string) -> Any`: `str.strip`; views.
strptime: Function  # `(Any, format: string, unit: ?string, error_is_null: ?bool) -> Any`:
subtract: Function  # `(T, T) -> T` for every integer, float and complex `T`; integers wrap.
sum: Function  # `(Any, axis: ?Any, keepdims: ?bool, initial: ?Scalar, where: ?Any,
swapcase: Function  # `(string) -> string`: `str.swapcase`.
take: Function  # `(Any, Any, axis: ?int64, mode: ?string) -> Any`: elements at the
take_along_axis: Function  # `(Any, Any, axis: ?int64) -> Any`: the elements at per-row indexes.
tan: Function  # `(T) -> T` for floats and complex.
tanh: Function  # `(T) -> T` for floats and complex (complex by Kahan's formula).
tile: Function  # `(Any, Any) -> Any`: the array repeated along each axis (a count or
title: Function  # `(string) -> string`: `str.title`.
true_divide: Function  # `true_divide`: the same function as `divide` (NumPy's alias).
trunc: Function  # `(T) -> T`: floats: rounded toward zero; integers kept.
unflatten: Function  # `(Any, Any) -> Any`: values grouped into rows of the given counts.
unique: Function  # `(Any, axis: ?int64) -> Any`: the distinct values, sorted, over
unpad: Function  # `(Any, ...) -> Any`: rows cut to the given lengths, or the valid
upper: Function  # `(string) -> string`: `str.upper`, full case mapping (`"ß"` →
value_counts: Function  # `(Any) -> Any`: each distinct value with its count, most frequent
var: Function  # `(Any, axis: ?Any, keepdims: ?bool, ddof: ?int64, where: ?Any,
weeks_between: Function  # `(Any, Any) -> Any`: the weeks (starting on Mondays) boundaries from `a` to `b`
where: Function  # `(bool, T, T) -> T` for bool, every numeric `T` and `string`:
with_field: Function  # `(Any, Any, string) -> Any`: the records with field `name` set to
year: Function  # `(date | datetime) -> int64`: the year (astronomical: 0 is 1 BC).
years_between: Function  # `(Any, Any) -> Any`: the years boundaries from `a` to `b`
zeros: Function  # `(string) -> Any`: an array of the named type filled with 0 (NA for
zfill: Function  # `(Any, width: int64) -> Any`: `str.zfill`.
zip: Function  # `(Any, ..., fields: ?Any) -> Any`: records of the arrays' elements,
