//! The keywords of the reductions and the other functions over axes, as
//! Rust values: [`AxisOptions`] holds them typed (`axis` as [`Axes`],
//! `keepdims: bool`, `ddof: usize`, `skip_na: bool`, `initial` a scalar,
//! `where` a `bool` array), and each such callable declares the ones it
//! takes once, as [`AxisKeyword`]s, from which its signature and keyword
//! list derive. A Rust caller passes the options as they are
//! ([`Callable::reduce_with`](crate::Callable::reduce_with)); only dynamic
//! callers (the CLI, `call_kw`, SQL) convert arrays to them, in one place.
//!
//! ```
//! use dynd::prelude::*;
//! use dynd::func::builtins;
//!
//! let x = nd::array![[1.0, 5.0], [], [3.0]];
//! let opts = AxisOptions::new().axis(1).keepdims(true).initial(0.0);
//! assert_eq!(builtins::MAX.callable().reduce_with(&x, &opts)?.to_string(), "[[5], [0], [3]]");
//! // A keyword the builtin does not take is refused, naming it.
//! let err = builtins::SUM.callable().reduce_with(&x, &AxisOptions::new().ddof(1)).unwrap_err();
//! assert!(err.to_string().contains("ddof"), "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use dynd_kernels::expr::ScalarOperand;
use dynd_kernels::Array;

/// The axes a reduction runs over: one (`1`, `-1`, `1usize`) or several
/// (`[0, 1]`, `&[0usize, 2][..]`, `vec![0, 1]`). Negative axes count from
/// the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axes(AxesRepr);

/// One axis without an allocation, or several.
#[derive(Clone, Debug, PartialEq, Eq)]
enum AxesRepr {
    One(i64),
    Many(Vec<i64>),
}

impl Axes {
    /// The axes, as given.
    pub fn as_slice(&self) -> &[i64] {
        match &self.0 {
            AxesRepr::One(a) => std::slice::from_ref(a),
            AxesRepr::Many(v) => v,
        }
    }
}

macro_rules! axes_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Axes {
            fn from(axis: $t) -> Axes {
                // Axes are far below 2^63: a larger one is out of range
                // anyway, and saturates.
                Axes(AxesRepr::One(i64::try_from(axis).unwrap_or(i64::MAX)))
            }
        }
        impl From<&[$t]> for Axes {
            fn from(axes: &[$t]) -> Axes {
                Axes(AxesRepr::Many(
                    axes.iter().map(|&a| i64::try_from(a).unwrap_or(i64::MAX)).collect(),
                ))
            }
        }
        impl<const N: usize> From<[$t; N]> for Axes {
            fn from(axes: [$t; N]) -> Axes {
                Axes::from(&axes[..])
            }
        }
        impl From<Vec<$t>> for Axes {
            fn from(axes: Vec<$t>) -> Axes {
                Axes::from(&axes[..])
            }
        }
    )*};
}
axes_from!(i64, i32, isize, usize, u32);

/// A keyword a function over axes may take: each has one name, one Rust
/// type in [`AxisOptions`] and one datashape in signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AxisKeyword {
    /// `axis: ?Any`: an axis or a list of axes ([`Axes`]); all without it.
    Axes,
    /// `axis: ?int64`: one axis (scans and sorts).
    Axis,
    /// `keepdims: ?bool`: each reduced axis kept as a dimension of size 1.
    Keepdims,
    /// `initial: ?Scalar`: the value a fold starts from.
    Initial,
    /// `where: ?Any`: a `bool` mask broadcast to the input.
    Where,
    /// `ddof: ?int64`: the variance divides by `n - ddof`.
    Ddof,
    /// `skip_na: ?bool`: NA elements left out rather than propagated.
    SkipNa,
    /// `ascending: ?bool`: the order of a sort (ascending without it).
    Ascending,
    /// `n: ?int64`: how many times a difference is taken (`diff`; once
    /// without it).
    N,
    /// `return_counts: ?bool`: each distinct value's count too (`unique`).
    ReturnCounts,
    /// `clip: ?bool`: rows longer than the length cut to it, and the
    /// result's rows fixed (`pad`).
    Clip,
    /// `fill: ?Any`: the value padding fills with (`pad`; NA without it).
    Fill,
}

impl AxisKeyword {
    /// The keyword's name, as callers write it.
    pub fn name(self) -> &'static str {
        match self {
            AxisKeyword::Axes | AxisKeyword::Axis => "axis",
            AxisKeyword::Keepdims => "keepdims",
            AxisKeyword::Initial => "initial",
            AxisKeyword::Where => "where",
            AxisKeyword::Ddof => "ddof",
            AxisKeyword::SkipNa => "skip_na",
            AxisKeyword::Ascending => "ascending",
            AxisKeyword::N => "n",
            AxisKeyword::ReturnCounts => "return_counts",
            AxisKeyword::Clip => "clip",
            AxisKeyword::Fill => "fill",
        }
    }

    /// The keyword's datashape in a signature (`?Any`, `?bool`, ...).
    pub fn datashape(self) -> &'static str {
        match self {
            AxisKeyword::Axes | AxisKeyword::Where | AxisKeyword::Fill => "?Any",
            AxisKeyword::Axis | AxisKeyword::Ddof | AxisKeyword::N => "?int64",
            AxisKeyword::Keepdims
            | AxisKeyword::SkipNa
            | AxisKeyword::Ascending
            | AxisKeyword::ReturnCounts
            | AxisKeyword::Clip => "?bool",
            AxisKeyword::Initial => "?Scalar",
        }
    }
}

/// The keywords of a function over axes (a reduction; a scan, `argmax`,
/// `softmax` or `flip`, which take `axis` and maybe `keepdims`), built
/// up: `axis`, `keepdims`, `initial`, `where`, `ddof`, `skip_na`
/// and `ascending` (see the builtins' docs for what each does; a callable
/// refuses a keyword it does not take, naming it). Unset, each is absent:
/// every axis, no kept dimensions, no initial value, no mask, `ddof` 0,
/// NA propagated.
///
/// ```
/// use dynd::prelude::*;
///
/// let a = nd::array![[1.0, 5.0], [], [3.0]];
/// let opts = AxisOptions::new().axis(1).keepdims(true).initial(0.0);
/// assert_eq!(a.max_with(&opts)?.to_string(), "[[5], [0], [3]]");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct AxisOptions {
    pub(crate) axis: Option<Axes>,
    pub(crate) keepdims: bool,
    pub(crate) initial: Option<Array>,
    pub(crate) mask: Option<Array>,
    pub(crate) ddof: Option<usize>,
    pub(crate) skip_na: bool,
    pub(crate) ascending: Option<bool>,
    pub(crate) n: Option<usize>,
    pub(crate) return_counts: bool,
    pub(crate) clip: bool,
    pub(crate) fill: Option<Array>,
}

impl AxisOptions {
    /// No keyword given.
    pub fn new() -> AxisOptions {
        AxisOptions::default()
    }

    /// Reduce over these axes only.
    #[must_use]
    pub fn axis(mut self, axes: impl Into<Axes>) -> AxisOptions {
        self.axis = Some(axes.into());
        self
    }

    /// Keep each reduced axis as a dimension of size 1, so the result
    /// broadcasts against the input.
    #[must_use]
    pub fn keepdims(mut self, keep: bool) -> AxisOptions {
        self.keepdims = keep;
        self
    }

    /// Start from this value (`sum`, `prod`, `min`, `max`: the value of an
    /// empty reduction).
    #[must_use]
    pub fn initial(mut self, value: impl ScalarOperand) -> AxisOptions {
        self.initial = Some(Array::from_scalar(value));
        self
    }

    /// Start from this 0-d array's value (as [`initial`](Self::initial),
    /// for a value of a type known only at run time).
    #[must_use]
    pub fn initial_array(mut self, value: Array) -> AxisOptions {
        self.initial = Some(value);
        self
    }

    /// Only the elements where this `bool` array (broadcast to the input)
    /// is true.
    #[must_use]
    pub fn mask(mut self, mask: &Array) -> AxisOptions {
        self.mask = Some(mask.clone());
        self
    }

    /// Divide by `n - ddof` (`var` and `std` only; 0 by default, 1 for
    /// the unbiased sample variance).
    #[must_use]
    pub fn ddof(mut self, ddof: usize) -> AxisOptions {
        self.ddof = Some(ddof);
        self
    }

    /// Leave NA elements of an option array (`?T`) out, rather than make
    /// the result NA where a group holds one (the default, as arithmetic
    /// propagates NA). Not for `count`, which counts the non-NA elements
    /// anyway.
    ///
    /// ```
    /// use dynd::prelude::*;
    ///
    /// let x = nd::Array::from_json("[[1, null], [2, 3], [null]]", Some(&"3 * var * ?float64".parse()?))?;
    /// assert_eq!(x.sum_axis(1)?.to_string(), "[null, 5, null]");
    /// let skip = AxisOptions::new().axis(1).skip_na(true);
    /// assert_eq!(x.sum_with(&skip)?.to_string(), "[1, 5, 0]");
    /// assert_eq!(x.mean_with(&skip)?.to_string(), "[1, 2.5, null]");
    /// assert_eq!(x.count_axis(1)?.to_string(), "[1, 2, 0]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn skip_na(mut self, skip: bool) -> AxisOptions {
        self.skip_na = skip;
        self
    }

    /// Sort ascending (`true`, the default) or descending (`false`).
    #[must_use]
    pub fn ascending(mut self, ascending: bool) -> AxisOptions {
        self.ascending = Some(ascending);
        self
    }

    /// Take the difference `n` times (`diff`; once by default).
    #[must_use]
    pub fn n(mut self, n: usize) -> AxisOptions {
        self.n = Some(n);
        self
    }

    /// Give each distinct value's count too (`unique`).
    #[must_use]
    pub fn return_counts(mut self, counts: bool) -> AxisOptions {
        self.return_counts = counts;
        self
    }

    /// Cut rows longer than the length to it, making the result's rows
    /// fixed (`pad`).
    #[must_use]
    pub fn clip(mut self, clip: bool) -> AxisOptions {
        self.clip = clip;
        self
    }

    /// Pad with this value (`pad`; NA by default, making the elements
    /// options).
    ///
    /// ```
    /// use dynd::func::{builtins, AxisOptions};
    /// use dynd::nd::{array, Array};
    ///
    /// let x = array![[1, 2, 3], [4]];
    /// let o = AxisOptions::new().clip(true).fill(&Array::from_scalar(0i64));
    /// let padded = builtins::PAD.callable().call_with(&[&x, &Array::from_scalar(2i64)], &o)?;
    /// assert_eq!(padded.to_string(), "[[1, 2], [4, 0]]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    #[must_use]
    pub fn fill(mut self, value: &Array) -> AxisOptions {
        self.fill = Some(value.clone());
        self
    }

    /// The axes given (`None`: every axis).
    pub fn axes(&self) -> Option<&[i64]> {
        self.axis.as_ref().map(Axes::as_slice)
    }

    /// Whether reduced axes are kept.
    pub fn keeps_dims(&self) -> bool {
        self.keepdims
    }

    /// The initial value, as a 0-d array.
    pub fn initial_value(&self) -> Option<&Array> {
        self.initial.as_ref()
    }

    /// The `where` mask.
    pub fn where_mask(&self) -> Option<&Array> {
        self.mask.as_ref()
    }

    /// The delta degrees of freedom (0 unless given).
    pub fn ddof_value(&self) -> usize {
        self.ddof.unwrap_or(0)
    }

    /// Whether NA elements are skipped.
    pub fn skips_na(&self) -> bool {
        self.skip_na
    }

    /// Whether a sort is ascending (the default) rather than descending.
    pub fn is_ascending(&self) -> bool {
        self.ascending.unwrap_or(true)
    }

    /// How many times a difference is taken (once unless given).
    pub fn n_value(&self) -> usize {
        self.n.unwrap_or(1)
    }

    /// Whether counts are asked for.
    pub fn returns_counts(&self) -> bool {
        self.return_counts
    }

    /// Whether long rows are cut.
    pub fn clips(&self) -> bool {
        self.clip
    }

    /// The value padding fills with (`None`: NA).
    pub fn fill_value(&self) -> Option<&Array> {
        self.fill.as_ref()
    }

    /// The one axis of a scan or sort (`None` when not given).
    ///
    /// # Errors
    ///
    /// [`Error::KeywordValue`](crate::Error::KeywordValue) naming `name`
    /// when several axes were given.
    ///
    /// ```
    /// use dynd::func::{builtins, AxisOptions};
    /// use dynd::nd::array;
    ///
    /// let running_max = builtins::get("maximum.accumulate")?;
    /// let x = array![[3, 1], [2, 5]];
    /// assert_eq!(running_max.reduce_with(&x, &AxisOptions::new().axis(0))?.to_string(), "[[3, 1], [3, 5]]");
    /// let err = running_max.reduce_with(&x, &AxisOptions::new().axis([0, 1])).unwrap_err();
    /// assert!(err.to_string().contains("one axis"), "{err}");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn one_axis(&self, name: &str) -> Result<Option<i64>, crate::Error> {
        match self.axes() {
            None => Ok(None),
            Some(&[axis]) => Ok(Some(axis)),
            Some(many) => Err(crate::Error::KeywordValue {
                name: name.to_string(),
                keyword: "axis".into(),
                expected: "one axis".into(),
                found: format!("{many:?}"),
            }),
        }
    }

    /// The names of the keywords given (`keepdims`, `skip_na`,
    /// `return_counts` and `clip` count as given when true).
    pub(crate) fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        [
            self.axis.is_some().then_some("axis"),
            self.keepdims.then_some("keepdims"),
            self.initial.is_some().then_some("initial"),
            self.mask.is_some().then_some("where"),
            self.ddof.is_some().then_some("ddof"),
            self.skip_na.then_some("skip_na"),
            self.ascending.is_some().then_some("ascending"),
            self.n.is_some().then_some("n"),
            self.return_counts.then_some("return_counts"),
            self.clip.then_some("clip"),
            self.fill.is_some().then_some("fill"),
        ]
        .into_iter()
        .flatten()
    }

    /// Whether no keyword but `axis` and `keepdims` is given.
    #[inline]
    pub(crate) fn only_axes(&self) -> bool {
        self.initial.is_none()
            && self.mask.is_none()
            && self.ddof.is_none()
            && !self.skip_na
            && self.ascending.is_none()
            && self.n.is_none()
            && !self.return_counts
            && !self.clip
            && self.fill.is_none()
    }

    /// These options with `mask` for the `where` mask.
    pub(crate) fn masked(&self, mask: Option<Array>) -> AxisOptions {
        AxisOptions {
            mask,
            ..self.clone()
        }
    }
}
