//! Callables over axes whose keywords are typed: a body taking
//! [`AxisOptions`], its signature and keyword list derived from the
//! [`AxisKeyword`]s it declares, and the one place dynamic callers' keyword
//! arrays become options (and, for callables without a typed body, options
//! become keyword arrays).

use super::*;
use crate::options::{Axes, AxisKeyword, AxisOptions};

/// The typed body of a callable over axes: its arrays and options.
pub(crate) type AxesFn = dyn Fn(&[&Array], &AxisOptions) -> Result<Array, Error> + Send + Sync;

/// A typed body and the keywords it takes.
#[derive(Clone)]
pub(crate) struct TypedAxes {
    /// How many arrays it takes.
    pub(super) arrays: usize,
    pub(super) keywords: Arc<[AxisKeyword]>,
    pub(super) run: Arc<AxesFn>,
}

impl Callable {
    /// A callable of one array and the keywords `keywords` (typed in
    /// [`AxisOptions`]; its signature is `(Any, <keyword>: <datashape>,
    /// ...) -> Any`), computed by `f`. Rust callers pass the options as
    /// they are ([`Callable::reduce_with`]); [`Callable::call_kw`] converts
    /// keyword arrays to them.
    ///
    /// ```
    /// use dynd::func::{AxisKeyword, Callable, AxisOptions};
    /// use dynd::nd::array;
    ///
    /// let peak = Callable::over_axes("peak", &[AxisKeyword::Axes, AxisKeyword::Keepdims], |a, o| {
    ///     dynd::func::builtins::MAX.callable().reduce_with(a, o)
    /// })?;
    /// assert_eq!(peak.signatures()[0].to_string(), "(Any, axis: ?Any, keepdims: ?bool) -> Any");
    /// let x = array![[1.0, 4.0], [3.0, 2.0]];
    /// assert_eq!(peak.reduce_with(&x, &AxisOptions::new().axis(1))?.to_string(), "[4, 3]");
    /// let axis = dynd::nd::Array::from_scalar(0i64);
    /// assert_eq!(peak.call_kw(&[&x], &[("axis", &axis)])?.to_string(), "[3, 4]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Callable::function`] (never, for distinct keywords).
    pub fn over_axes(
        name: &str,
        keywords: &[AxisKeyword],
        f: impl Fn(&Array, &AxisOptions) -> Result<Array, Error> + Send + Sync + 'static,
    ) -> Result<Callable, Error> {
        Callable::over_axes_of(name, 1, keywords, move |args, o| f(args[0], o))
    }

    /// As [`Callable::over_axes`], for a callable of `arrays` arrays (its
    /// signature `(Any, Any, <keyword>: <datashape>, ...) -> Any`), called
    /// with typed options by [`Callable::call_with`]: `take_along_axis(x,
    /// indices, axis=)`, `pad(x, length, clip=, fill=)`.
    ///
    /// ```
    /// use dynd::func::{AxisKeyword, AxisOptions, Callable};
    /// use dynd::nd::array;
    ///
    /// let scaled_max = Callable::over_axes_of("scaled_max", 2, &[AxisKeyword::Axes], |args, o| {
    ///     let m = dynd::func::builtins::MAX.callable().reduce_with(args[0], o)?;
    ///     dynd::func::multiply(&m, args[1])
    /// })?;
    /// let x = array![[1.0, 4.0], [3.0, 2.0]];
    /// let r = scaled_max.call_with(&[&x, &array![10.0]], &AxisOptions::new().axis(1))?;
    /// assert_eq!(r.to_string(), "[40, 30]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Callable::function`] (never, for distinct keywords).
    pub fn over_axes_of(
        name: &str,
        arrays: usize,
        keywords: &[AxisKeyword],
        f: impl Fn(&[&Array], &AxisOptions) -> Result<Array, Error> + Send + Sync + 'static,
    ) -> Result<Callable, Error> {
        let params: Vec<String> = keywords
            .iter()
            .map(|k| format!(", {}: {}", k.name(), k.datashape()))
            .collect();
        let signature = format!(
            "({}{}) -> Any",
            vec!["Any"; arrays.max(1)].join(", "),
            params.concat()
        );
        let declared = keywords
            .iter()
            .map(|k| {
                let scalar = match k {
                    AxisKeyword::Axis | AxisKeyword::Ddof | AxisKeyword::N => Some(Scalar::Int64),
                    AxisKeyword::Keepdims
                    | AxisKeyword::SkipNa
                    | AxisKeyword::Ascending
                    | AxisKeyword::ReturnCounts
                    | AxisKeyword::Clip => Some(Scalar::Bool),
                    AxisKeyword::Axes
                    | AxisKeyword::Initial
                    | AxisKeyword::Where
                    | AxisKeyword::Fill => None,
                };
                Keyword::maybe(k.name(), scalar)
            })
            .collect();
        let typed = TypedAxes {
            arrays: arrays.max(1),
            keywords: keywords.into(),
            run: Arc::new(f),
        };
        let (owner, body) = (name.to_string(), typed.clone());
        let mut c = Callable::function(name, &signature, declared, move |args, kw| {
            let options = options_of(&owner, &body.keywords, kw)?;
            (body.run)(args, &options)
        })?;
        if let Implementation::Function(f) = &mut c.implementation {
            f.typed = Some(typed);
        }
        Ok(c)
    }

    /// This callable over `a` with typed keywords: a callable made by
    /// [`Callable::over_axes`] (every builtin reduction, scan and sort)
    /// takes them as they are; any other gets them as keyword arrays (see
    /// [`Callable::call_kw`]).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownKeyword`] for an option the callable does not take
    /// (naming the ones it does), and the callable's own errors.
    pub fn reduce_with(&self, a: &Array, options: &AxisOptions) -> Result<Array, Error> {
        // A builtin sum, product, min or max of a small dense array over
        // some axes: straight to its fold (`x.sum_axis(1)` on a 4×4
        // matrix costs what the fold and the result cost).
        if let (Some(op), Some(small)) = (self.reducer, self.small) {
            if options.only_axes() {
                if let Some(r) = small(&self.name, op, a, options) {
                    return r;
                }
            }
        }
        self.call_with(&[a], options)
    }

    /// This callable over `args` with typed keywords: as
    /// [`Callable::reduce_with`], for any number of arrays (see
    /// [`Callable::over_axes_of`]).
    ///
    /// # Errors
    ///
    /// [`Error::Arity`] for the wrong number of arrays, and as
    /// [`Callable::reduce_with`].
    pub fn call_with(&self, args: &[&Array], options: &AxisOptions) -> Result<Array, Error> {
        let Some(typed) = self.whole_array_fn().and_then(|f| f.typed.as_ref()) else {
            let arrays = keyword_arrays(options);
            let kw: Vec<(&str, &Array)> = arrays.iter().map(|(k, v)| (*k, v)).collect();
            return self.call_kw(args, &kw);
        };
        if args.len() != typed.arrays {
            return Err(Error::Arity {
                name: self.name.to_string(),
                expected: typed.arrays,
                found: args.len(),
            });
        }
        if let Some(k) = options
            .given()
            .find(|k| !typed.keywords.iter().any(|d| d.name() == *k))
        {
            return Err(Error::UnknownKeyword {
                name: self.name.to_string(),
                keyword: k.to_string(),
                valid: self.keywords.iter().map(|k| k.name.to_string()).collect(),
            });
        }
        check(&self.name, options)?;
        (typed.run)(args, options)
    }
}

/// The checks of values a Rust type does not make: a `where` mask holds
/// `bool`s.
fn check(name: &str, o: &AxisOptions) -> Result<(), Error> {
    match &o.mask {
        Some(m) if m.dtype().as_scalar() != Some(Scalar::Bool) => Err(Error::KeywordValue {
            name: name.to_string(),
            keyword: "where".into(),
            expected: "a bool array".into(),
            found: format!("{m} ({})", m.ty()),
        }),
        _ => Ok(()),
    }
}

/// The options a dynamic call gave as keyword arrays (checked against the
/// declarations already, defaults filled in).
fn options_of(name: &str, keywords: &[AxisKeyword], kw: &Kwargs<'_>) -> Result<AxisOptions, Error> {
    let bad = |keyword: &str, expected: &str, a: &Array| Error::KeywordValue {
        name: name.to_string(),
        keyword: keyword.into(),
        expected: expected.into(),
        found: format!("{a} ({})", a.ty()),
    };
    let mut o = AxisOptions::new();
    for k in keywords {
        let Some(a) = kw.get(k.name()) else {
            continue;
        };
        // A keyword that counts (`n`, `ddof`): an integer of at least 0.
        let count = |keyword: &'static str| -> Result<Option<usize>, Error> {
            kw.int(keyword)?
                .map(|v| {
                    usize::try_from(v).map_err(|_| Error::KeywordValue {
                        name: name.to_string(),
                        keyword: keyword.into(),
                        expected: "a count of at least 0".into(),
                        found: v.to_string(),
                    })
                })
                .transpose()
        };
        match k {
            AxisKeyword::Axes => {
                let expected = "an integer or a list of integers";
                let int = |v: &dynd_kernels::Value| match v {
                    dynd_kernels::Value::Int(i) => i64::try_from(*i).ok(),
                    _ => None,
                };
                o.axis = Some(match a.to_value() {
                    dynd_kernels::Value::List(items) => Axes::from(
                        items
                            .iter()
                            .map(|v| int(v).ok_or_else(|| bad("axis", expected, a)))
                            .collect::<Result<Vec<i64>, Error>>()?,
                    ),
                    v => Axes::from(int(&v).ok_or_else(|| bad("axis", expected, a))?),
                });
            }
            AxisKeyword::Axis => o.axis = kw.int("axis")?.map(Axes::from),
            AxisKeyword::Keepdims => o.keepdims = kw.bool("keepdims")?.unwrap_or(false),
            AxisKeyword::SkipNa => o.skip_na = kw.bool("skip_na")?.unwrap_or(false),
            AxisKeyword::Ascending => o.ascending = kw.bool("ascending")?,
            AxisKeyword::ReturnCounts => {
                o.return_counts = kw.bool("return_counts")?.unwrap_or(false);
            }
            AxisKeyword::Clip => o.clip = kw.bool("clip")?.unwrap_or(false),
            AxisKeyword::Fill => o.fill = Some(a.clone()),
            AxisKeyword::N => o.n = count("n")?.or(o.n),
            AxisKeyword::Initial => o.initial = Some(a.clone()),
            AxisKeyword::Where => o.mask = Some(a.clone()),
            AxisKeyword::Ddof => o.ddof = count("ddof")?.or(o.ddof),
        }
    }
    check(name, &o)?;
    Ok(o)
}

/// The options as keyword arrays, for a callable without a typed body.
fn keyword_arrays(o: &AxisOptions) -> Vec<(&'static str, Array)> {
    let mut kw = Vec::new();
    if let Some(axes) = &o.axis {
        kw.push((
            "axis",
            match axes.as_slice() {
                [one] => Array::from_scalar(*one),
                many => Array::from_vec(many.to_vec()),
            },
        ));
    }
    if o.keepdims {
        kw.push(("keepdims", Array::from_scalar(true)));
    }
    if let Some(v) = &o.initial {
        kw.push(("initial", v.clone()));
    }
    if let Some(m) = &o.mask {
        kw.push(("where", m.clone()));
    }
    if let Some(d) = o.ddof {
        kw.push((
            "ddof",
            Array::from_scalar(i64::try_from(d).unwrap_or(i64::MAX)),
        ));
    }
    if o.skip_na {
        kw.push(("skip_na", Array::from_scalar(true)));
    }
    if let Some(a) = o.ascending {
        kw.push(("ascending", Array::from_scalar(a)));
    }
    if let Some(n) = o.n {
        kw.push((
            "n",
            Array::from_scalar(i64::try_from(n).unwrap_or(i64::MAX)),
        ));
    }
    if o.return_counts {
        kw.push(("return_counts", Array::from_scalar(true)));
    }
    if o.clip {
        kw.push(("clip", Array::from_scalar(true)));
    }
    if let Some(v) = &o.fill {
        kw.push(("fill", v.clone()));
    }
    kw
}
