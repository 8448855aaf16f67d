//! Scalar UDFs: a dynd callable applied row by row.

use std::hash::{Hash, Hasher};

use datafusion::arrow::array::{Array as _, ArrayRef, AsArray, BooleanArray, UInt32Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::{cast, filter, nullif, take};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use dynd::func::{AxisOptions, Callable, ReductionKind};
use dynd::nd::{Array, ToArrow};
use dynd::ndt::Type;

use crate::types::{coerce, data_type, exec, field, plan, row_type, sample};

/// How the callable runs on a batch.
#[derive(Debug, Clone)]
enum Body {
    /// Elementwise or over core dimensions: the rows broadcast against each
    /// other (and against scalar arguments) and the callable runs once.
    Rows(Callable),
    /// A reduction over every dimension of each row (`row_mean`).
    RowReduction(Callable),
    /// A list function over each row's list (`softmax(list)`).
    List(ListFn),
    /// A function over whole arrays that runs row by row (an
    /// `#[elemental]` fn over records): its result type from a call on
    /// one sample row of each argument's type.
    Function(Callable),
}

/// A dynd list function as SQL calls it: the column first (one list per
/// row), then any further columns or literals.
#[derive(Clone, Copy)]
pub(crate) struct ListFn {
    /// The SQL name (registered as `dynd_NAME`, and `NAME` when free).
    name: &'static str,
    /// How many arguments: at least the first, at most the second (the
    /// trailing ones optional, as a Python function's keywords are).
    arity: (usize, usize),
    /// The call on whole columns (`N * var * T` and the rest).
    f: fn(&[&Array]) -> std::result::Result<Array, dynd::Error>,
    /// The result's row type from the arguments' row types, where a call
    /// on a sample row cannot tell it (the sample's values are not valid
    /// arguments: an index of 1 into a row of one); `None` plans from the
    /// sample call.
    plan: Option<PlanFn>,
    /// Whether a null in the first argument is a missing row (as a null
    /// list is): the call runs on the other rows and the result is null
    /// there. For functions whose result is a list (`split`), which dynd
    /// has no optional form of.
    null_rows: bool,
}

/// A list function's result row type from its arguments' row types and
/// its string literals ([`Literals`]).
type PlanFn = fn(&[Type], &Literals) -> std::result::Result<Type, dynd::Error>;

/// The string literals among a call's arguments, where the result's type
/// depends on them (`strptime(s, '%Y', 'ns')` is a `Timestamp(ns)`):
/// `None` while DataFusion asks without them (checking the argument
/// types), and at planning each argument's text where it is a string
/// literal.
pub(crate) struct Literals(Option<Vec<Option<String>>>);

impl Literals {
    /// Literals not known (yet).
    const UNKNOWN: Literals = Literals(None);

    /// The text of argument `i`: `Ok(None)` while the literals are not
    /// known or the call has no argument `i`, an error naming `what` if
    /// argument `i` is not a string literal.
    fn str(
        &self,
        op: &'static str,
        i: usize,
        arity: usize,
        what: &'static str,
    ) -> std::result::Result<Option<&str>, dynd::Error> {
        let Some(lits) = &self.0 else { return Ok(None) };
        if i >= arity {
            return Ok(None);
        }
        match lits.get(i) {
            Some(Some(s)) => Ok(Some(s)),
            _ => Err(dynd::Error::Argument {
                op,
                what,
                expected: "a string literal (the result's type depends on it)",
                found: "a column".into(),
            }),
        }
    }
}

impl std::fmt::Debug for ListFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ListFn({})", self.name)
    }
}

/// An integer argument of `op` (a literal, one row).
fn int_arg(
    op: &'static str,
    a: &Array,
    what: &'static str,
) -> std::result::Result<i64, dynd::Error> {
    dynd::nd::ArrayOps::cast(
        a,
        &Type::from(dynd::ndt::Scalar::Int64),
        dynd::nd::ErrorMode::Overflow,
    )
    .ok()
    .filter(|c| c.ndim() == 0)
    .and_then(|c| c.get::<i64>(&[]).ok())
    .ok_or_else(|| dynd::Error::Argument {
        op,
        what,
        expected: "an integer literal",
        found: a.ty().to_string().into(),
    })
}

/// The list functions SQL has: per row of a `List`/`LargeList` column.
pub(crate) const LIST_FUNCTIONS: &[ListFn] = {
    use dynd::func as f;
    &[
        ListFn {
            name: "argmax",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::argmax(a[0], Some(-1), false),
        },
        ListFn {
            name: "argmin",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::argmin(a[0], Some(-1), false),
        },
        ListFn {
            name: "sort",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::sort(a[0], -1, true),
        },
        ListFn {
            name: "sort_descending",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::sort(a[0], -1, false),
        },
        ListFn {
            name: "argsort",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::argsort(a[0], -1, true),
        },
        ListFn {
            name: "unique",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::unique_rows(a[0]),
        },
        ListFn {
            name: "softmax",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::softmax(a[0], -1),
        },
        ListFn {
            name: "log_softmax",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::log_softmax(a[0], -1),
        },
        ListFn {
            name: "logsumexp",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::logsumexp(a[0], -1),
        },
        ListFn {
            name: "num",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::num(a[0], -1),
        },
        ListFn {
            name: "local_index",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::local_index(a[0]),
        },
        ListFn {
            name: "count_nonzero",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::count_nonzero(a[0], Some(-1)),
        },
        ListFn {
            name: "diff",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::diff(a[0], 1, -1),
        },
        ListFn {
            name: "pad",
            arity: (2, 2),
            null_rows: false,
            plan: None,
            f: |a| {
                let n = int_arg("pad", a[1], "the length")?;
                let n = usize::try_from(n).map_err(|_| dynd::Error::Argument {
                    op: "pad",
                    what: "the length",
                    expected: "at least 0",
                    found: n.to_string().into(),
                })?;
                f::pad(a[0], n, false, None)
            },
        },
        ListFn {
            name: "filter",
            arity: (2, 2),
            null_rows: false,
            plan: None,
            f: |a| f::filter(a[0], a[1]),
        },
        ListFn {
            name: "take_along_axis",
            arity: (2, 2),
            null_rows: false,
            // A row of the indexes' dimension over the values' elements.
            plan: Some(|rows, _| match (rows[0].kind(), rows[1].kind()) {
                (dynd::ndt::TypeKind::Dim(_, values), dynd::ndt::TypeKind::Dim(dim, _)) => {
                    Type::dim(dim.clone(), values.clone())
                }
                _ => Err(dynd::Error::NeedsArray {
                    op: "take_along_axis".into(),
                    expected: "a list of values and a list of indexes",
                    found: rows[0].clone(),
                }),
            }),
            f: |a| f::take_along_axis(a[0], a[1], -1),
        },
        ListFn {
            name: "concatenate",
            arity: (2, 2),
            null_rows: false,
            plan: None,
            f: |a| f::concatenate(&[a[0], a[1]], -1),
        },
    ]
};

/// An optional string argument of `op`: `a[i]`, a literal (one row), or
/// `None` where the call has fewer arguments.
fn str_arg(
    op: &'static str,
    a: &[&Array],
    i: usize,
    what: &'static str,
) -> std::result::Result<Option<String>, dynd::Error> {
    let Some(x) = a.get(i) else { return Ok(None) };
    dynd::nd::text::Strings::of(x)
        .filter(|s| s.shape().is_empty())
        .and_then(|s| s.str(0).map(str::to_string))
        .map(Some)
        .ok_or_else(|| dynd::Error::Argument {
            op,
            what,
            expected: "a string literal",
            found: x.ty().to_string().into(),
        })
}

/// An optional integer argument of `op`, as [`str_arg`].
fn opt_int(
    op: &'static str,
    a: &[&Array],
    i: usize,
    what: &'static str,
) -> std::result::Result<Option<i64>, dynd::Error> {
    a.get(i).map(|x| int_arg(op, x, what)).transpose()
}

/// A required string argument of `op`.
fn req_str(
    op: &'static str,
    a: &[&Array],
    i: usize,
    what: &'static str,
) -> std::result::Result<String, dynd::Error> {
    str_arg(op, a, i, what)?.ok_or_else(|| dynd::Error::Argument {
        op,
        what,
        expected: "a string literal",
        found: "nothing".into(),
    })
}

/// The result row types of the string functions (NA follows the data).
const STRING: Option<PlanFn> = Some(|_, _| Ok(Type::from(dynd::ndt::Scalar::String)));
const INT64: Option<PlanFn> = Some(|_, _| Ok(Type::from(dynd::ndt::Scalar::Int64)));
const BOOL: Option<PlanFn> = Some(|_, _| Ok(Type::from(dynd::ndt::Scalar::Bool)));
const STRINGS: Option<PlanFn> = Some(|_, _| "var * string".parse());

/// The string functions whose options are keywords in Rust and `dynd
/// eval` (`strip(x, chars=" -")`): in SQL the keywords follow the
/// strings as trailing literals, in the order NumPy's functions take
/// them (`strip(s, ' -')`, `center(s, 10, '*')`, `find(s, 'a', 2)`).
/// The strings may be columns or literals; the options are literals.
/// (The string functions without keywords, `upper`, `str_len`,
/// `contains`, …, are registered from their overloads.)
pub(crate) const TEXT_FUNCTIONS: &[ListFn] = {
    use dynd::func as f;
    &[
        ListFn {
            name: "strip",
            arity: (1, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::strip(a[0], str_arg("strip", a, 1, "chars")?.as_deref()),
        },
        ListFn {
            name: "lstrip",
            arity: (1, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::lstrip(a[0], str_arg("lstrip", a, 1, "chars")?.as_deref()),
        },
        ListFn {
            name: "rstrip",
            arity: (1, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::rstrip(a[0], str_arg("rstrip", a, 1, "chars")?.as_deref()),
        },
        ListFn {
            name: "center",
            arity: (2, 3),
            null_rows: false,
            plan: STRING,
            f: |a| {
                let width = int_arg("center", a[1], "width")?;
                f::center(a[0], width, str_arg("center", a, 2, "fillchar")?.as_deref())
            },
        },
        ListFn {
            name: "ljust",
            arity: (2, 3),
            null_rows: false,
            plan: STRING,
            f: |a| {
                let width = int_arg("ljust", a[1], "width")?;
                f::ljust(a[0], width, str_arg("ljust", a, 2, "fillchar")?.as_deref())
            },
        },
        ListFn {
            name: "rjust",
            arity: (2, 3),
            null_rows: false,
            plan: STRING,
            f: |a| {
                let width = int_arg("rjust", a[1], "width")?;
                f::rjust(a[0], width, str_arg("rjust", a, 2, "fillchar")?.as_deref())
            },
        },
        ListFn {
            name: "zfill",
            arity: (2, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::zfill(a[0], int_arg("zfill", a[1], "width")?),
        },
        ListFn {
            name: "expandtabs",
            arity: (1, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::expandtabs(a[0], opt_int("expandtabs", a, 1, "tabsize")?),
        },
        ListFn {
            name: "slice",
            arity: (2, 4),
            null_rows: false,
            plan: STRING,
            f: |a| {
                let op = "slice";
                f::slice(
                    a[0],
                    opt_int(op, a, 1, "start")?,
                    opt_int(op, a, 2, "stop")?,
                    opt_int(op, a, 3, "step")?,
                )
            },
        },
        ListFn {
            name: "find",
            arity: (2, 4),
            null_rows: false,
            plan: INT64,
            f: |a| {
                f::find(
                    a[0],
                    a[1],
                    opt_int("find", a, 2, "start")?,
                    opt_int("find", a, 3, "end")?,
                )
            },
        },
        ListFn {
            name: "rfind",
            arity: (2, 4),
            null_rows: false,
            plan: INT64,
            f: |a| {
                f::rfind(
                    a[0],
                    a[1],
                    opt_int("rfind", a, 2, "start")?,
                    opt_int("rfind", a, 3, "end")?,
                )
            },
        },
        ListFn {
            name: "count_substring",
            arity: (2, 4),
            null_rows: false,
            plan: INT64,
            f: |a| {
                let op = "count_substring";
                f::count_substring(
                    a[0],
                    a[1],
                    opt_int(op, a, 2, "start")?,
                    opt_int(op, a, 3, "end")?,
                )
            },
        },
        ListFn {
            name: "startswith",
            arity: (2, 4),
            null_rows: false,
            plan: BOOL,
            f: |a| {
                let op = "startswith";
                f::startswith(
                    a[0],
                    a[1],
                    opt_int(op, a, 2, "start")?,
                    opt_int(op, a, 3, "end")?,
                )
            },
        },
        ListFn {
            name: "endswith",
            arity: (2, 4),
            null_rows: false,
            plan: BOOL,
            f: |a| {
                let op = "endswith";
                f::endswith(
                    a[0],
                    a[1],
                    opt_int(op, a, 2, "start")?,
                    opt_int(op, a, 3, "end")?,
                )
            },
        },
        ListFn {
            name: "replace",
            arity: (3, 4),
            null_rows: false,
            plan: STRING,
            f: |a| f::replace(a[0], a[1], a[2], opt_int("replace", a, 3, "count")?),
        },
        ListFn {
            name: "split",
            arity: (1, 2),
            null_rows: true,
            plan: STRINGS,
            f: |a| f::split(a[0], str_arg("split", a, 1, "sep")?.as_deref()),
        },
        ListFn {
            name: "join",
            arity: (1, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::join(a[0], str_arg("join", a, 1, "sep")?.as_deref()),
        },
        ListFn {
            name: "regex_match",
            arity: (2, 2),
            null_rows: false,
            plan: BOOL,
            f: |a| f::regex_match(a[0], &req_str("regex_match", a, 1, "the pattern")?),
        },
        ListFn {
            name: "regex_replace",
            arity: (3, 3),
            null_rows: false,
            plan: STRING,
            f: |a| {
                let op = "regex_replace";
                f::regex_replace(
                    a[0],
                    &req_str(op, a, 1, "the pattern")?,
                    &req_str(op, a, 2, "the replacement")?,
                )
            },
        },
        ListFn {
            name: "regex_extract",
            arity: (2, 3),
            null_rows: false,
            plan: STRING,
            f: |a| {
                let op = "regex_extract";
                f::regex_extract(
                    a[0],
                    &req_str(op, a, 1, "the pattern")?,
                    opt_int(op, a, 2, "group")?,
                )
            },
        },
        ListFn {
            name: "regex_split",
            arity: (2, 2),
            null_rows: true,
            plan: STRINGS,
            f: |a| f::regex_split(a[0], &req_str("regex_split", a, 1, "the pattern")?),
        },
    ]
};

/// The row type of the first argument, without its option.
const SAME: Option<PlanFn> = Some(|rows, _| {
    let t = rows
        .first()
        .cloned()
        .unwrap_or_else(|| Type::from(dynd::ndt::Scalar::Int64));
    Ok(match t.kind() {
        dynd::ndt::TypeKind::Option(inner) => inner.clone(),
        _ => t,
    })
});

/// The calendar functions of dates, times and timestamps (pyarrow's
/// names): the parts (`year(ts)`, `day_of_week(d)`), `strftime(ts[,
/// format])`, `strptime(s, format[, unit[, error_is_null]])` (a
/// `Timestamp` of the unit, microseconds by default; a format with `%z`
/// gives UTC instants, `Timestamp(unit, "UTC")`),
/// `assume_timezone(ts, zone[, ambiguous[, nonexistent]])` (wall times read
/// in the zone: `Timestamp(unit, zone)`; the zone is a literal, as the
/// result's type holds it), `floor_temporal(ts[, unit[, multiple]])` and
/// `ceil_`/`round_temporal`, `years_between(a, b)` … `nanoseconds_between`.
/// A timestamp with a zone reads its parts in the zone.
pub(crate) const TIME_FUNCTIONS: &[ListFn] = {
    use dynd::func as f;
    &[
        ListFn {
            name: "year",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::year(a[0]),
        },
        ListFn {
            name: "month",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::month(a[0]),
        },
        ListFn {
            name: "day",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::day(a[0]),
        },
        ListFn {
            name: "hour",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::hour(a[0]),
        },
        ListFn {
            name: "minute",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::minute(a[0]),
        },
        ListFn {
            name: "second",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::second(a[0]),
        },
        ListFn {
            name: "millisecond",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::millisecond(a[0]),
        },
        ListFn {
            name: "microsecond",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::microsecond(a[0]),
        },
        ListFn {
            name: "nanosecond",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::nanosecond(a[0]),
        },
        ListFn {
            name: "day_of_week",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::day_of_week(a[0]),
        },
        ListFn {
            name: "day_of_year",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::day_of_year(a[0]),
        },
        ListFn {
            name: "iso_year",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::iso_year(a[0]),
        },
        ListFn {
            name: "iso_week",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::iso_week(a[0]),
        },
        ListFn {
            name: "quarter",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::quarter(a[0]),
        },
        ListFn {
            name: "is_leap_year",
            arity: (1, 1),
            null_rows: false,
            plan: None,
            f: |a| f::is_leap_year(a[0]),
        },
        ListFn {
            name: "years_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::years_between(a[0], a[1]),
        },
        ListFn {
            name: "quarters_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::quarters_between(a[0], a[1]),
        },
        ListFn {
            name: "weeks_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::weeks_between(a[0], a[1]),
        },
        ListFn {
            name: "days_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::days_between(a[0], a[1]),
        },
        ListFn {
            name: "hours_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::hours_between(a[0], a[1]),
        },
        ListFn {
            name: "minutes_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::minutes_between(a[0], a[1]),
        },
        ListFn {
            name: "seconds_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::seconds_between(a[0], a[1]),
        },
        ListFn {
            name: "milliseconds_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::milliseconds_between(a[0], a[1]),
        },
        ListFn {
            name: "microseconds_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::microseconds_between(a[0], a[1]),
        },
        ListFn {
            name: "nanoseconds_between",
            arity: (2, 2),
            null_rows: false,
            plan: INT64,
            f: |a| f::nanoseconds_between(a[0], a[1]),
        },
        ListFn {
            name: "floor_temporal",
            arity: (1, 3),
            null_rows: false,
            plan: SAME,
            f: |a| {
                let op = "floor_temporal";
                let unit = str_arg(op, a, 1, "unit")?;
                let multiple = opt_int(op, a, 2, "multiple")?.unwrap_or(1);
                f::floor_temporal(a[0], unit.as_deref().unwrap_or("day"), multiple, true)
            },
        },
        ListFn {
            name: "ceil_temporal",
            arity: (1, 3),
            null_rows: false,
            plan: SAME,
            f: |a| {
                let op = "ceil_temporal";
                let unit = str_arg(op, a, 1, "unit")?;
                let multiple = opt_int(op, a, 2, "multiple")?.unwrap_or(1);
                f::ceil_temporal(a[0], unit.as_deref().unwrap_or("day"), multiple, true)
            },
        },
        ListFn {
            name: "round_temporal",
            arity: (1, 3),
            null_rows: false,
            plan: SAME,
            f: |a| {
                let op = "round_temporal";
                let unit = str_arg(op, a, 1, "unit")?;
                let multiple = opt_int(op, a, 2, "multiple")?.unwrap_or(1);
                f::round_temporal(a[0], unit.as_deref().unwrap_or("day"), multiple, true)
            },
        },
        ListFn {
            name: "strftime",
            arity: (1, 2),
            null_rows: false,
            plan: STRING,
            f: |a| f::strftime(a[0], str_arg("strftime", a, 1, "format")?.as_deref()),
        },
        ListFn {
            name: "strptime",
            arity: (2, 4),
            null_rows: false,
            // pyarrow's result: the unit asked for (microseconds by
            // default), in UTC for a format with `%z`; the type of a call
            // on one string that does not match.
            plan: Some(|rows, lits| {
                let op = "strptime";
                let Some(format) = lits.str(op, 1, rows.len(), "the format")? else {
                    return Ok(Type::from(dynd::ndt::Scalar::DateTimeUs));
                };
                let unit = lits.str(op, 2, rows.len(), "the unit")?;
                let probe = dynd::nd::array![""];
                let t = f::strptime(&probe, format, unit, true)?;
                Ok(without_option(t.dtype()))
            }),
            f: |a| {
                let op = "strptime";
                let format = req_str(op, a, 1, "the format")?;
                let unit = str_arg(op, a, 2, "the unit")?;
                let error_is_null = opt_bool(op, a, 3, "error_is_null")?.unwrap_or(false);
                f::strptime(a[0], &format, unit.as_deref(), error_is_null)
            },
        },
        ListFn {
            name: "assume_timezone",
            arity: (2, 4),
            null_rows: false,
            // The timestamps' unit in the zone named: the zone is the
            // result type's, so it is a literal.
            plan: Some(|rows, lits| {
                let op = "assume_timezone";
                let tz = lits
                    .str(op, 1, rows.len(), "the time zone")?
                    .unwrap_or("UTC");
                let unit = match without_option(&rows[0])
                    .as_scalar()
                    .and_then(|s| s.temporal())
                {
                    Some(dynd::ndt::Temporal::DateTime(u)) => u,
                    _ => {
                        return Err(dynd::Error::Argument {
                            op,
                            what: "the argument",
                            expected: "timestamps without a zone",
                            found: rows[0].to_string().into(),
                        })
                    }
                };
                Type::new(dynd::ndt::TypeKind::DateTimeTz {
                    unit,
                    tz: tz.into(),
                })
            }),
            f: |a| {
                let op = "assume_timezone";
                let tz = req_str(op, a, 1, "the time zone")?;
                let ambiguous = str_arg(op, a, 2, "ambiguous")?;
                let nonexistent = str_arg(op, a, 3, "nonexistent")?;
                f::assume_timezone(a[0], &tz, ambiguous.as_deref(), nonexistent.as_deref())
            },
        },
    ]
};

/// `t` without its option (`?T` is `T`).
fn without_option(t: &Type) -> Type {
    match t.kind() {
        dynd::ndt::TypeKind::Option(inner) => inner.clone(),
        _ => t.clone(),
    }
}

/// An optional boolean argument of `op`, as [`str_arg`].
fn opt_bool(
    op: &'static str,
    a: &[&Array],
    i: usize,
    what: &'static str,
) -> std::result::Result<Option<bool>, dynd::Error> {
    let Some(x) = a.get(i) else { return Ok(None) };
    x.get::<bool>(&[])
        .map(Some)
        .map_err(|_| dynd::Error::Argument {
            op,
            what,
            expected: "a boolean literal",
            found: x.ty().to_string().into(),
        })
}

/// The scalar UDF of a list function.
pub(crate) fn list_impl(f: ListFn) -> DyndScalarUdf {
    udf(f.name.to_string(), Body::List(f))
}

/// A dynd callable as a DataFusion scalar UDF (see [`scalar_udf`] and
/// [`row_reduction_udf`]).
#[derive(Debug)]
pub struct DyndScalarUdf {
    name: String,
    aliases: Vec<String>,
    body: Body,
    signature: Signature,
}

impl PartialEq for DyndScalarUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.aliases == other.aliases && self.key() == other.key()
    }
}

impl Eq for DyndScalarUdf {}

impl Hash for DyndScalarUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.key().hash(state);
    }
}

/// A scalar UDF calling `f` row by row: `f` is elementwise or a gufunc
/// (typed overloads, [`Callable::is_overloaded`]). Its name is `f`'s, and
/// so is its overload resolution: DataFusion offers the argument types, dynd
/// picks the overload (with its promotions) or the planning error lists the
/// candidate signatures.
///
/// Each row is one element of dynd's call: rows broadcast against each
/// other, so a `List<Float64>` row minus a `Float64` row subtracts the
/// number from every value of the list, and a scalar argument (a literal)
/// broadcasts against every row. Nulls are dynd's NA (`?T`): they
/// propagate through the function; a null list row gives a null result row.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// use dynd::func::builtins;
///
/// let ctx = SessionContext::new();
/// ctx.register_udf(dynd_datafusion::scalar_udf(&builtins::get("add")?)?);
/// let df = ctx.sql("SELECT add(x, 0.5) AS y FROM (VALUES (1), (2)) AS t(x)").await?;
/// let batches = df.collect().await?;
/// let y = batches[0].column(0).as_any().downcast_ref::<datafusion::arrow::array::Float64Array>().unwrap();
/// assert_eq!(y.values(), &[1.5, 2.5]);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// A planning error for a function callable (a reduction, `take`, …): a
/// reduction becomes a UDF through [`row_reduction_udf`] or
/// [`crate::aggregate_udf`].
pub fn scalar_udf(f: &Callable) -> Result<ScalarUDF> {
    Ok(ScalarUDF::new_from_impl(scalar_impl(f)?))
}

pub(crate) fn scalar_impl(f: &Callable) -> Result<DyndScalarUdf> {
    if !f.is_overloaded() {
        return Err(datafusion::common::plan_datafusion_err!(
            "dynd function '{}' is resolved by running it, not from argument types, so it cannot be a scalar UDF{}",
            f.name(),
            if f.reduction_kind() == ReductionKind::None {
                ""
            } else {
                " (a reduction: use row_reduction_udf for one result per row, or aggregate_udf)"
            }
        ));
    }
    Ok(udf(sql_name(f.name()), Body::Rows(f.clone())))
}

/// A scalar UDF named `row_NAME` reducing each row of its one argument over
/// all of the row's dimensions with the reduction `r` (`row_mean(durations)`
/// is the mean of each list). Nulls inside a row are skipped where `r`
/// takes `skip_na`; a null row gives a null result; a row with no values
/// gives NULL where `r` has no value for it (`mean`, `var`, `std`, `min`,
/// `max`, a `NAME.reduce` without an identity) and the identity otherwise
/// (`row_sum` 0).
///
/// # Errors
///
/// A planning error if `r` is not a reduction over an `axis` keyword.
pub fn row_reduction_udf(r: &Callable) -> Result<ScalarUDF> {
    Ok(ScalarUDF::new_from_impl(row_impl(r)?))
}

pub(crate) fn row_impl(r: &Callable) -> Result<DyndScalarUdf> {
    if r.reduction_kind() == ReductionKind::None {
        return Err(datafusion::common::plan_datafusion_err!(
            "dynd function '{}' is not a reduction over an axis, so it has no row form",
            r.name()
        ));
    }
    Ok(udf(
        format!("row_{}", sql_name(r.name())),
        Body::RowReduction(r.clone()),
    ))
}

/// A scalar UDF of a callable that runs on whole arrays and gives one
/// result per row: an `#[elemental]` fn over records (`dist(p: Point, q:
/// Point) -> f64`), whose struct columns come in as records held as
/// columns (no field copied) and whose record results go out as struct
/// columns. Its result type for given argument types is that of a call
/// on one sample row of each.
///
/// # Errors
///
/// A planning error for an overloaded callable (use [`scalar_udf`]) or a
/// reduction.
pub fn function_udf(f: &Callable) -> Result<ScalarUDF> {
    if f.is_overloaded() || f.reduction_kind() != ReductionKind::None {
        return Err(datafusion::common::plan_datafusion_err!(
            "dynd function '{}' is resolved from its argument types: make it a UDF with scalar_udf",
            f.name()
        ));
    }
    Ok(ScalarUDF::new_from_impl(udf(
        sql_name(f.name()),
        Body::Function(f.clone()),
    )))
}

/// A dynd name as a SQL identifier: `add.reduce` is `add_reduce`.
pub(crate) fn sql_name(name: &str) -> String {
    name.replace('.', "_")
}

fn udf(name: String, body: Body) -> DyndScalarUdf {
    DyndScalarUdf {
        name,
        aliases: Vec::new(),
        body,
        signature: Signature::user_defined(Volatility::Immutable),
    }
}

impl DyndScalarUdf {
    /// What identifies the callable: its name and signatures.
    fn key(&self) -> (bool, String, Vec<String>) {
        let (row, f) = match &self.body {
            Body::Rows(f) | Body::Function(f) => (false, f),
            Body::RowReduction(f) => (true, f),
            Body::List(l) => return (true, format!("list {}", l.name), Vec::new()),
        };
        let sigs = f.signatures().iter().map(|s| s.to_string()).collect();
        (row, f.name().to_string(), sigs)
    }

    /// The UDF under another name, and other names too (`hypot` and
    /// `dynd_hypot`).
    pub(crate) fn named(mut self, name: String, aliases: Vec<String>) -> Self {
        self.name = name;
        self.aliases = aliases;
        self
    }

    /// The result row type for these argument row types.
    fn result_row(&self, rows: &[Type], lits: &Literals) -> std::result::Result<Type, dynd::Error> {
        match &self.body {
            // Arrow lists nearly always declare nullable items, which
            // functions over core dimensions refuse; a batch with no nulls
            // in them converts without options, so plan for that (a batch
            // with nulls there is an execution error naming them).
            Body::Rows(f) => f.resolve(rows).or_else(|e| {
                let plain: Vec<Type> = rows.iter().map(without_inner_options).collect();
                f.resolve(&plain).map_err(|_| e)
            }),
            Body::Function(f) => {
                let run = |rows: &[Type]| -> std::result::Result<Type, dynd::Error> {
                    let samples = rows
                        .iter()
                        .map(sample)
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    let refs: Vec<&Array> = samples.iter().collect();
                    let out = f.call(&refs)?;
                    Ok(match out.ty().kind() {
                        dynd::ndt::TypeKind::Dim(_, row) => row.clone(),
                        _ => out.ty().clone(),
                    })
                };
                // Struct fields Arrow declares nullable (a literal's always
                // are) convert without options from a batch with no nulls
                // in them: plan for that too.
                run(rows).or_else(|e| {
                    let plain: Vec<Type> = rows.iter().map(without_field_options).collect();
                    run(&plain).map_err(|_| e)
                })
            }
            Body::RowReduction(r) => {
                let [row] = rows else {
                    return Err(dynd::Error::Arity {
                        name: r.name().to_string(),
                        expected: 1,
                        found: rows.len(),
                    });
                };
                let one = sample(row)?;
                let out = reduce_rows(r, &one, None)?;
                Ok(out.dtype().clone())
            }
            Body::List(l) => {
                let (least, most) = l.arity;
                if rows.len() < least || rows.len() > most {
                    return Err(dynd::Error::Arity {
                        name: l.name.to_string(),
                        expected: if rows.len() < least { least } else { most },
                        found: rows.len(),
                    });
                }
                if let Some(plan) = l.plan {
                    return plan(rows, lits);
                }
                // The call on one sample row of each type tells the
                // result's row type (literal arguments as scalars).
                let args = rows
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let one = sample(t)?;
                        if i == 0 || t.is_dim() {
                            Ok(one)
                        } else {
                            one.at(0)
                        }
                    })
                    .collect::<std::result::Result<Vec<_>, dynd::Error>>()?;
                let refs: Vec<&Array> = args.iter().collect();
                let out = (l.f)(&refs)?;
                match out.ty().kind() {
                    dynd::ndt::TypeKind::Dim(_, row) => Ok(row.clone()),
                    _ => Ok(out.ty().clone()),
                }
            }
        }
    }
}

/// `t` with the options inside its dimensions removed (`var * ?float64`
/// is `var * float64`).
fn without_inner_options(t: &Type) -> Type {
    use dynd::ndt::TypeKind;
    fn strip(t: &Type) -> Type {
        match t.kind() {
            TypeKind::Option(inner) => strip(inner),
            TypeKind::Dim(d, element) => {
                Type::dim(d.clone(), strip(element)).unwrap_or_else(|_| t.clone())
            }
            _ => t.clone(),
        }
    }
    match t.kind() {
        TypeKind::Dim(..) => strip(t),
        _ => t.clone(),
    }
}

/// `t` with the options of its structs and their fields removed, at any
/// depth (`?{x: ?float64}` is `{x: float64}`).
fn without_field_options(t: &Type) -> Type {
    use dynd::ndt::TypeKind;
    match t.kind() {
        TypeKind::Option(inner) if matches!(inner.kind(), TypeKind::Struct(_)) => {
            without_field_options(inner)
        }
        TypeKind::Struct(s) => {
            let fields = s
                .fields
                .iter()
                .map(|(n, f)| {
                    let f = match f.kind() {
                        TypeKind::Option(inner) => inner.clone(),
                        _ => f.clone(),
                    };
                    (n.clone(), without_field_options(&f))
                })
                .collect();
            Type::new(TypeKind::Struct(dynd::ndt::Struct {
                fields,
                variadic: s.variadic,
            }))
            .unwrap_or_else(|_| t.clone())
        }
        TypeKind::Dim(d, element) => {
            Type::dim(d.clone(), without_field_options(element)).unwrap_or_else(|_| t.clone())
        }
        _ => t.clone(),
    }
}

/// Whether a type holds NA anywhere (`?T` at any depth).
fn has_option(t: &Type) -> bool {
    use dynd::ndt::TypeKind;
    match t.kind() {
        TypeKind::Option(_) => true,
        TypeKind::Dim(_, element) => has_option(element),
        TypeKind::Struct(s) => s.fields.iter().any(|(_, t)| has_option(t)),
        _ => false,
    }
}

/// `r` over every dimension but the first of `a` (each row), skipping NA
/// where `r` can, folding in `initial` if given.
fn reduce_rows(
    r: &Callable,
    a: &Array,
    initial: Option<&Array>,
) -> std::result::Result<Array, dynd::Error> {
    let axes: Vec<i64> = (1..a.ndim() as i64).collect();
    let mut options = AxisOptions::new().axis(axes);
    if has_option(a.ty()) && r.keywords().iter().any(|k| k.name() == "skip_na") {
        options = options.skip_na(true);
    }
    if let Some(init) = initial {
        options = options.initial_array(init.clone());
    }
    r.reduce_with(a, &options)
}

/// Which rows of `a` have no values (NA not counted).
fn empty_rows(a: &Array) -> std::result::Result<Vec<bool>, dynd::Error> {
    let count = dynd::func::builtins::COUNT.callable();
    let axes: Vec<i64> = (1..a.ndim() as i64).collect();
    let n = count.reduce_with(a, &AxisOptions::new().axis(axes))?;
    Ok(n.to_vec::<i64>()?.into_iter().map(|n| n == 0).collect())
}

/// The row reduction of a batch as Arrow: a row with no values gives NULL
/// where the reduction has no value for it (`mean`, `var`, `std`, `min`,
/// `max`, a `NAME.reduce` without an identity) and the identity otherwise
/// (`sum` 0, `prod` 1, `count` 0, `all` true, `any` false).
fn row_reduce(name: &str, r: &Callable, arrow: &ArrayRef, a: &Array) -> Result<ArrayRef> {
    // Which rows are empty: from a list's offsets when its values hold no
    // nulls (no pass over the values), else by counting.
    let empty = || -> Result<Vec<bool>> {
        let from_offsets = |offsets: Vec<usize>, values: &ArrayRef| {
            (values.null_count() == 0).then(|| offsets.windows(2).map(|w| w[0] == w[1]).collect())
        };
        let quick = match arrow.data_type() {
            DataType::List(_) => {
                let l = arrow.as_list::<i32>();
                from_offsets(
                    l.value_offsets().iter().map(|&o| o as usize).collect(),
                    l.values(),
                )
            }
            DataType::LargeList(_) => {
                let l = arrow.as_list::<i64>();
                from_offsets(
                    l.value_offsets().iter().map(|&o| o as usize).collect(),
                    l.values(),
                )
            }
            _ => None,
        };
        match quick {
            Some(e) => Ok(e),
            None => empty_rows(a).map_err(|e| exec(name, e)),
        }
    };
    let no_value = matches!(r.name(), "mean" | "var" | "std");
    let (out, empty) = match reduce_rows(r, a, None) {
        // NA for the empty rows already (a reduction over `var` rows).
        Ok(out) if matches!(out.dtype().kind(), dynd::ndt::TypeKind::Option(_)) => (out, None),
        Ok(out) if no_value => (out, Some(empty()?)),
        Ok(out) => (out, None),
        Err(e) => {
            // min, max and NAME.reduce without an identity refuse empty
            // rows: fold in any value there, then make those rows NULL.
            let takes_initial = r.keywords().iter().any(|k| k.name() == "initial");
            let empty = empty()?;
            if !takes_initial || !empty.contains(&true) {
                return Err(exec(name, e));
            }
            let value = match a.dtype().kind() {
                dynd::ndt::TypeKind::Option(inner) => inner.clone(),
                _ => a.dtype().clone(),
            };
            let init = Array::zeros(&value).map_err(|_| exec(name, e.clone()))?;
            let out = reduce_rows(r, a, Some(&init)).map_err(|_| exec(name, e))?;
            (out, Some(empty))
        }
    };
    let out = out.to_arrow().map_err(|e| exec(name, e))?;
    match empty {
        Some(empty) if empty.contains(&true) => Ok(nullif(&out, &BooleanArray::from(empty))?),
        _ => Ok(out),
    }
}

impl ScalarUDFImpl for DyndScalarUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let coerced = coerce(arg_types);
        let rows = coerced
            .iter()
            .map(|t| {
                dynd::nd::arrow_interop::dynd_type(t, false)
                    .map_err(|e| plan(&self.name, arg_types, e))
            })
            .collect::<Result<Vec<_>>>()?;
        self.result_row(&rows, &Literals::UNKNOWN)
            .map_err(|e| plan(&self.name, arg_types, e))?;
        Ok(coerced)
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let rows = arg_types
            .iter()
            .map(|t| {
                dynd::nd::arrow_interop::dynd_type(t, false)
                    .map_err(|e| plan(&self.name, arg_types, e))
            })
            .collect::<Result<Vec<_>>>()?;
        let t = self
            .result_row(&rows, &Literals::UNKNOWN)
            .map_err(|e| plan(&self.name, arg_types, e))?;
        Ok(data_type(&t, &self.name)?.0)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let rows = args
            .arg_fields
            .iter()
            .map(|f| row_type(f, &self.name))
            .collect::<Result<Vec<_>>>()?;
        let lits = Literals(Some(
            args.scalar_arguments
                .iter()
                .map(|s| match s {
                    Some(
                        ScalarValue::Utf8(Some(t))
                        | ScalarValue::LargeUtf8(Some(t))
                        | ScalarValue::Utf8View(Some(t)),
                    ) => Some(t.clone()),
                    _ => None,
                })
                .collect(),
        ));
        let t = self.result_row(&rows, &lits).map_err(|e| {
            let types: Vec<DataType> = args
                .arg_fields
                .iter()
                .map(|f| f.data_type().clone())
                .collect();
            plan(&self.name, &types, e)
        })?;
        field(&self.name, &t, &self.name)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let want = args.return_field.data_type().clone();
        let n = args.number_rows;
        // A NULL list (or struct) literal is a missing row for every row,
        // as a NULL row of a column is for its own: the result is NULL.
        let null_row = args.args.iter().any(|a| match a {
            ColumnarValue::Scalar(s) => s.is_null() && is_row_type(&s.data_type()),
            ColumnarValue::Array(_) => false,
        });
        if null_row {
            let null = ScalarValue::try_from(&want)?;
            let all_scalar = args
                .args
                .iter()
                .all(|a| matches!(a, ColumnarValue::Scalar(_)));
            return Ok(if all_scalar {
                ColumnarValue::Scalar(null)
            } else {
                ColumnarValue::Array(null.to_array_of_size(n)?)
            });
        }
        if args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)))
        {
            // Every argument a literal: one row, returned as a scalar.
            let arrays = args
                .args
                .iter()
                .map(|a| a.to_array(1))
                .collect::<Result<Vec<_>>>()?;
            let out = self.run(&arrays, &[false; 0], 1)?;
            let out = conform(out, &want)?;
            return Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?));
        }
        let mut arrays = Vec::with_capacity(args.args.len());
        let mut is_scalar = Vec::with_capacity(args.args.len());
        for a in &args.args {
            match a {
                ColumnarValue::Array(a) => {
                    arrays.push(a.clone());
                    is_scalar.push(false);
                }
                ColumnarValue::Scalar(s) => {
                    arrays.push(s.to_array_of_size(1)?);
                    is_scalar.push(true);
                }
            }
        }
        let out = self.run(&arrays, &is_scalar, n)?;
        Ok(ColumnarValue::Array(conform(out, &want)?))
    }
}

/// `out` as the type promised at planning (the nullability of list items,
/// `LargeList` for `List`, …), cast only where it differs.
fn conform(out: ArrayRef, want: &DataType) -> Result<ArrayRef> {
    if out.data_type() == want {
        Ok(out)
    } else {
        Ok(cast(&out, want)?)
    }
}

/// Whether an Arrow array's nulls can be dynd NA (a primitive or string
/// value's flag) rather than a missing row (a list, fixed-size list or
/// struct, which dynd has no optional form of).
fn nulls_are_rows(a: &ArrayRef) -> bool {
    a.null_count() > 0 && is_row_type(a.data_type())
}

/// Whether a value of this Arrow type is a dynd dimension or structure
/// (a list, fixed-size list or struct), whose null is a missing row.
fn is_row_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::FixedSizeList(..)
            | DataType::Struct(_)
    )
}

impl DyndScalarUdf {
    /// Calls the callable on `n` rows: `arrays[i]` is a column of `n` rows,
    /// or one row broadcast to all (`is_scalar[i]`; all of them when the
    /// slice is shorter).
    fn run(&self, arrays: &[ArrayRef], is_scalar: &[bool], n: usize) -> Result<ArrayRef> {
        let scalar = |i: usize| is_scalar.get(i).copied().unwrap_or(true);
        // Null list rows: the call runs on the other rows, and the result
        // has a null in their place.
        let first_null_rows = matches!(&self.body, Body::List(l) if l.null_rows);
        let null_rows = arrays
            .iter()
            .enumerate()
            .filter(|(i, a)| {
                !scalar(*i)
                    && (nulls_are_rows(a) || (*i == 0 && first_null_rows && a.null_count() > 0))
            })
            .filter_map(|(_, a)| a.logical_nulls())
            .reduce(|a, b| NullBuffer::union(Some(&a), Some(&b)).unwrap_or(a));
        if let Some(valid) = null_rows {
            let keep = BooleanArray::from(valid.inner().clone());
            let kept = arrays
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    if scalar(i) {
                        Ok(a.clone())
                    } else {
                        filter(a, &keep)
                    }
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let m = n - valid.null_count();
            let out = self.run(&kept, is_scalar, m)?;
            let mut next = 0u32;
            let index: UInt32Array = valid
                .iter()
                .map(|v| {
                    v.then(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect();
            return Ok(take(&out, &index, None)?);
        }
        let f = match &self.body {
            Body::Rows(f) | Body::Function(f) => f,
            Body::List(l) => {
                let mut args = Vec::with_capacity(arrays.len());
                for (i, a) in arrays.iter().enumerate() {
                    let d = Array::from_arrow(a.as_ref()).map_err(|e| exec(&self.name, e))?;
                    let d = if scalar(i) && i > 0 { d.at(0) } else { Ok(d) };
                    args.push(d.map_err(|e| exec(&self.name, e))?);
                }
                let refs: Vec<&Array> = args.iter().collect();
                let out = (l.f)(&refs).map_err(|e| exec(&self.name, e))?;
                return out.to_arrow().map_err(|e| exec(&self.name, e));
            }
            Body::RowReduction(r) => {
                // One argument: a column (a scalar is a column of one row).
                let Some(a) = arrays.first() else {
                    return Err(exec(
                        &self.name,
                        dynd::Error::Arity {
                            name: r.name().to_string(),
                            expected: 1,
                            found: 0,
                        },
                    ));
                };
                let d = Array::from_arrow(a.as_ref()).map_err(|e| exec(&self.name, e))?;
                return row_reduce(&self.name, r, a, &d);
            }
        };
        let mut dynd_args = Vec::with_capacity(arrays.len());
        for (i, a) in arrays.iter().enumerate() {
            let d = Array::from_arrow(a.as_ref()).map_err(|e| exec(&self.name, e))?;
            // A scalar is one row, not a column of one.
            let d = if scalar(i) { d.at(0) } else { Ok(d) }.map_err(|e| exec(&self.name, e))?;
            dynd_args.push((d, scalar(i)));
        }
        let all_scalar = dynd_args.iter().all(|(_, s)| *s);
        // Rows line up at the front: a column whose rows have fewer
        // dimensions than another's gets size-1 ones after its first,
        // so dynd's trailing alignment broadcasts row against row.
        let depth = dynd_args
            .iter()
            .map(|(a, s)| a.ndim() - usize::from(!*s))
            .max()
            .unwrap_or(0);
        let mut padded = Vec::with_capacity(dynd_args.len());
        for (a, s) in dynd_args {
            let mut a = a;
            if !s {
                while a.ndim() - 1 < depth {
                    a = a.expand_dims(1).map_err(|e| exec(&self.name, e))?;
                }
            }
            padded.push(a);
        }
        let refs: Vec<&Array> = padded.iter().collect();
        let out = f.call(&refs).map_err(|e| exec(&self.name, e))?;
        let out = if all_scalar {
            out.expand_dims(0).map_err(|e| exec(&self.name, e))?
        } else {
            out
        };
        out.to_arrow().map_err(|e| exec(&self.name, e))
    }
}
