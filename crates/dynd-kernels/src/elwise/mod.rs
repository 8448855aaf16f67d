//! Dimension kernels for elementwise operations with several inputs.
//!
//! [`push_elwise`] builds, for a destination and any number of sources,
//! the kernels that walk their dimensions together (the sources
//! broadcast to the destination, right-aligned, size 1 and missing
//! dimensions stretching) and call a leaf kernel on each element. Fixed
//! dimensions become one loop record, coalesced and ordered by the
//! destination's strides, whose innermost loop calls the leaf's *strided*
//! kernel once per run; `var` dimensions in the sources check each row's
//! length at run time.
//!
//! A result of fixed dimensions around one innermost `var` (`N * var *
//! T`) does not go through a kernel per row: operands whose rows have the
//! same lengths and lie end to end in their values (two columns of one
//! table, a result and its input) run as one flat loop over the values;
//! with a value per row (`N * 1`) those values are spread over blocks of
//! the rows' values; other layouts (rows of length 1 that broadcast, views
//! with steps over the rows) call the leaf's loop once per row. Each
//! checks the rows in one pass over their (start, length) pairs, and the
//! result shares an operand's pairs when its rows are the result's:
//!
//! ```
//! use dynd_kernels::elwise::{apply, Leaf};
//! use dynd::nd::Array;
//!
//! let t = "3 * var * float64".parse()?;
//! let x = Array::from_json("[[1, 2], [], [3, 4, 5]]", Some(&t))?;
//! let y = Array::from_json("[[10, 20], [], [30, 40, 50]]", Some(&t))?;
//! let r = apply(&[&x, &y], &Leaf::map(|a: f64, b: f64| a + b))?;
//! assert_eq!(r.to_string(), "[[11, 22], [], [33, 44, 55]]");
//! // The result's rows are `x`'s: its pairs are shared, not rebuilt.
//! assert!(std::sync::Arc::ptr_eq(r.data_block(), x.data_block()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The typed entry points run a Rust function elementwise, checking the
//! element types, broadcasting the inputs and allocating the output:
//!
//! ```
//! use dynd_kernels::{array, elwise};
//!
//! let (a, b) = (array![[1.0, 2.0], [3.0, 4.0]], array![10.0, 20.0]);
//! let r = elwise::map2(&a, &b, |x: f64, y: f64| x * y)?;
//! assert_eq!(r.to_string(), "[[10, 40], [30, 80]]");
//! assert_eq!(r.ty().to_string(), "2 * 2 * float64");
//!
//! // var rows broadcast into a fixed result.
//! let ragged = array![[1.0], [2.0, 3.0]];
//! let r = elwise::map2(&ragged, &array![[0.5, 0.25], [1.0, 2.0]], |x: f64, y: f64| x + y)?;
//! assert_eq!(r.to_string(), "[[1.5, 1.25], [3, 5]]");
//! # Ok::<(), dynd::Error>(())
//! ```

mod dense;
mod dims;
mod flat;
mod gufunc;
pub(crate) use gufunc::apply_core_into;
mod lift;
mod maps;
mod ragged;
mod text;
mod typed;
mod vector;
pub use typed::{CalendarPart, IntOp, Predicate};

use smallvec::{smallvec, SmallVec};

use dynd_types::{Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::element::Element;
use crate::error::{Error, KernelError};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};

pub use crate::alloc::alloc_broadcast;
use crate::alloc::alloc_lifted;
pub use crate::fn_types::{LeafInput, LeafOutput, LeafReturn};
pub(crate) use crate::loops::FlatRun;
pub use crate::loops::{F64Op, INLINE_ARGS, MAX_LEAF_ARGS, PARALLEL_MIN};
pub use dense::DenseLoop;
pub use dims::push_elwise;
pub(crate) use dims::push_lifted;
use dims::*;
pub use flat::FlatPlan;
use flat::*;
pub(crate) use flat::{c_order_dims, fits_c_order, CDims};
pub use gufunc::{apply_core, CoreFn, CoreLeaf, CoreSlice, CoreSliceMut};
pub use lift::ElementFn;
use lift::Lifted;
use maps::*;
pub use text::TextSink;

/// The broadcast result type of `args` with data type `R`.
fn result_type<R: Element>(args: &[&Array]) -> Result<Type, Error> {
    let types = args
        .iter()
        .map(|a| Type::with_dims(a.shape(), R::SCALAR.into()))
        .collect::<Result<Vec<_>, _>>()?;
    dynd_types::broadcast(&types, dynd_types::BroadcastMode::NumPy)
}

/// Runs `kernel`'s dimension and leaf records into this array.
///
/// # Safety
///
/// `kernel` was built by [`push_elwise`] for this array's type and
/// arrmeta as the destination and `srcs`' as the sources, with a leaf
/// whose kernels read and write elements of exactly those data types.
pub(crate) unsafe fn run_into(
    this: &mut Array,
    kernel: &crate::kernel::Kernel<'_>,
    srcs: &[&Array],
) -> Result<(), Error> {
    let ptrs: SmallVec<[*const u8; INLINE_ARGS]> = srcs.iter().map(|a| a.data_ptr()).collect();
    let dst = this.data_ptr() as *mut u8;
    // SAFETY: by the contract; the destination was made unique by the
    // caller, so it does not overlap the sources.
    unsafe { kernel.single(dst, &ptrs) }?;
    Ok(())
}

/// `f` applied to each element of `a`, in a new array.
///
/// # Errors
///
/// As [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into).
pub fn map1<A: Element, R: Element>(
    a: &Array,
    f: impl Fn(A) -> R + Send + Sync + 'static,
) -> Result<Array, Error> {
    let mut out = alloc_broadcast(&result_type::<R>(&[a])?, &[a])?;
    // Shared, so the lifted function is `Clone` whatever `f` is.
    let f = std::sync::Arc::new(f);
    apply_into(&mut out, &[a], &Leaf::map(move |x: A| f(x)))?;
    Ok(out)
}

/// `f` applied to each pair of elements of `a` and `b`, broadcast
/// together (NumPy's rules; a `var` row meeting a fixed dimension must
/// have its length or 1), in a new array.
///
/// # Errors
///
/// As [`map1`], and [`dynd_types::Error::Broadcast`] naming the dimension.
pub fn map2<A: Element, B: Element, R: Element>(
    a: &Array,
    b: &Array,
    f: impl Fn(A, B) -> R + Send + Sync + 'static,
) -> Result<Array, Error> {
    let mut out = alloc_broadcast(&result_type::<R>(&[a, b])?, &[a, b])?;
    let f = std::sync::Arc::new(f);
    apply_into(&mut out, &[a, b], &Leaf::map(move |x: A, y: B| f(x, y)))?;
    Ok(out)
}

type PushLeaf = dyn for<'a> Fn(&mut KernelBuilder<'a>) -> Child + Send + Sync;

/// How a leaf pushes its kernel.
#[derive(Clone)]
enum Push {
    /// A kernel over the elements alone.
    Elements(std::sync::Arc<PushLeaf>),
    /// A kernel over strings, which reads the arguments' text blocks and
    /// writes new strings into the call's text arena ([`text`]), or, for
    /// a `view`, points its result strings into its first argument's text.
    Text {
        push: std::sync::Arc<text::PushText>,
        view: bool,
        /// Whether the strings it writes are UTF-8 by construction.
        utf8_out: bool,
    },
}

/// A scalar kernel with known element types, ready to be lifted over
/// dimensions: the safe way to give an elementwise operation its leaf.
///
/// A `Leaf` can only be made from Rust functions over [`Element`] types, so
/// its kernels read and write exactly its [`inputs`](Leaf::inputs) and
/// [`output`](Leaf::output) types; [`apply`] and [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into) check
/// the arrays' data types against them.
///
/// ```
/// use dynd::func::{Callable, Leaf, Overload};
/// use dynd::nd::array;
///
/// let hypot = Leaf::map(|x: f64, y: f64| (x * x + y * y).sqrt());
/// let hypot = Callable::new("hypot", vec![Overload::new(hypot)])?;
/// let r = hypot.call(&[&array![[3.0], [5.0]], &array![4.0, 12.0]])?;
/// assert_eq!(r.to_string(), "[[5, 12.36931687685298], [6.4031242374328485, 13]]");
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone)]
pub struct Leaf {
    inputs: SmallVec<[dynd_types::Scalar; INLINE_ARGS]>,
    /// Per input: whether the function takes it as `Option<T>` (a `?T`
    /// element), seeing NA itself.
    options: SmallVec<[bool; INLINE_ARGS]>,
    output: dynd_types::Scalar,
    /// Whether the function returns `Option<R>` (the result is `?R`).
    output_option: bool,
    push: Push,
    /// The loop without a kernel, for the flat fast paths; `None` for a
    /// fallible leaf, whose errors need the kernel's indices.
    flat: Option<std::sync::Arc<dyn FlatRun>>,
    /// The plain `float64` operation it computes, for a leaf made by
    /// [`Leaf::f64_op`] (fused evaluation runs it without the kernel).
    f64_op: Option<F64Op>,
}

impl std::fmt::Debug for Leaf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inputs: Vec<String> = self.inputs.iter().map(|s| s.to_string()).collect();
        write!(f, "Leaf(({}) -> {})", inputs.join(", "), self.output)
    }
}

impl Leaf {
    /// A leaf applying `f` to one element of each input: any Rust function
    /// of 1 to [`MAX_LEAF_ARGS`] parameters (see [`ElementFn`]). Its
    /// parameter and result types give the leaf's element types:
    ///
    /// - an element type `T` takes (or makes) `T`; NA in a `?T` argument
    ///   makes the result NA without calling `f`;
    /// - `Option<T>` takes (or makes) `?T`, and sees NA as `None`;
    /// - a `Result` result makes a fallible leaf: an `Err` fails the whole
    ///   call with its message and the element's index.
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::{array, Array};
    ///
    /// // A callable of one leaf runs it over any array.
    /// let call = |leaf: Leaf, a: &Array| Callable::new("f", vec![Overload::new(leaf)])?.call(&[a]);
    /// let checked_sqrt = Leaf::map(|x: f64| {
    ///     if x >= 0.0 { Ok(x.sqrt()) } else { Err(format!("sqrt of {x}")) }
    /// });
    /// assert_eq!(call(checked_sqrt.clone(), &array![4.0, 9.0])?.to_string(), "[2, 3]");
    /// let err = call(checked_sqrt, &array![[4.0, 9.0], [1.0, -1.0]]).unwrap_err();
    /// assert_eq!(err.to_string(), "sqrt of -1, at index [1, 1]");
    ///
    /// let or_zero = Leaf::map(|x: Option<f64>| x.unwrap_or(0.0));
    /// let a = Array::from_json("[1.5, null]", Some(&"2 * ?float64".parse()?))?;
    /// let r = call(or_zero, &a)?;
    /// assert_eq!((r.to_string(), r.ty().to_string()), ("[1.5, 0]".into(), "2 * float64".into()));
    /// let positive = Leaf::map(|x: f64| (x > 0.0).then_some(x));
    /// let r = call(positive, &Array::from_vec(vec![2.0, -1.0]))?;
    /// assert_eq!((r.to_string(), r.ty().to_string()), ("[2, null]".into(), "2 * ?float64".into()));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn map<Args: 'static, F: ElementFn<Args>>(f: F) -> Leaf {
        let kernel = MapLeaf(Lifted {
            f,
            _args: std::marker::PhantomData,
        });
        Leaf::of_map(lift::signature_of::<Args, F>(), kernel)
    }

    /// [`Leaf::map`] with the function's loops compiled for each
    /// instruction set the library dispatches on (AVX-512, AVX2 with FMA,
    /// the baseline) and run on the CPU's best: what `#[elemental]` makes
    /// of a user's fn, whose body then vectorises (its `if`s as masked
    /// selects). Three copies of the loop: the builtins, many and with
    /// their hot loops elsewhere, keep [`Leaf::map`]'s one.
    ///
    /// ```
    /// use dynd::func::Leaf;
    /// use dynd::prelude::*;
    ///
    /// let clamp = Leaf::map_dispatched(|x: f64| if x < 0.0 { 0.0 } else { x });
    /// let c = dynd::func::Callable::new("clamp", vec![dynd::func::Overload::new(clamp)])?;
    /// assert_eq!(c.call(&[&Array::from_vec(vec![-1.0, 2.0])])?.to_string(), "[0, 2]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn map_dispatched<Args: 'static, F: ElementFn<Args>>(f: F) -> Leaf {
        let kernel = MapLeaf(lift::LiftedBest(Lifted {
            f,
            _args: std::marker::PhantomData,
        }));
        Leaf::of_map(lift::signature_of::<Args, F>(), kernel)
    }

    /// The leaf of a map's kernel: it serves both the kernel builder and
    /// the flat fast paths.
    fn of_map<M: MapLoop + Clone>(sig: lift::ElementSignature, kernel: MapLeaf<M>) -> Leaf {
        let flat = std::sync::Arc::new(kernel.clone()) as std::sync::Arc<dyn FlatRun>;
        let push = move |b: &mut KernelBuilder<'_>| b.push(kernel.clone());
        Leaf::of_parts(sig, std::sync::Arc::new(push), flat)
    }

    /// The leaf of a lifted function's parts: out of line, so that only
    /// the function's own loops are compiled for each function.
    #[inline(never)]
    fn of_parts(
        sig: lift::ElementSignature,
        push: std::sync::Arc<PushLeaf>,
        flat: std::sync::Arc<dyn FlatRun>,
    ) -> Leaf {
        // The loop without a kernel serves the flat fast paths, which
        // neither report errors nor lay out `?T` elements.
        let plain = !sig.fallible && !sig.output.1 && sig.inputs.iter().all(|&(_, o)| !o);
        Leaf {
            inputs: sig.inputs.iter().map(|&(s, _)| s).collect(),
            options: sig.inputs.iter().map(|&(_, o)| o).collect(),
            output: sig.output.0,
            output_option: sig.output.1,
            push: Push::Elements(push),
            flat: plain.then_some(flat),
            f64_op: None,
        }
    }

    /// The leaf computing the `float64` operation `op` (`(float64,
    /// float64) -> float64`, or `(float64) -> float64`), marked so fused
    /// evaluation can run chains of them in one loop.
    pub fn f64_op(op: F64Op) -> Leaf {
        // Its loops are compiled per instruction set (the same IEEE
        // operation on each).
        let mut leaf = Leaf::f64_op_loop(op);
        leaf.f64_op = Some(op);
        leaf
    }

    /// The `float64` operation of a leaf made by [`Leaf::f64_op`].
    pub fn as_f64_op(&self) -> Option<F64Op> {
        self.f64_op
    }

    /// This leaf's loop over other element types stored as its own are
    /// (their [`Scalar::storage`](dynd_types::Scalar::storage) is the
    /// same): a time type's loop is its integer's, compiled once
    /// (`(int64, int64) -> bool` is `(datetime, datetime) -> bool`).
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::ndt::Scalar;
    /// use dynd::nd::Array;
    ///
    /// let later = Leaf::map(|a: i64, b: i64| a > b).retyped(&[Scalar::DateTimeS; 2], Scalar::Bool)?;
    /// let later = Callable::new("later", vec![Overload::new(later)])?;
    /// let t = |s: &str| Array::from_json(s, Some(&"2 * datetime[unit=\"s\"]".parse().unwrap())).unwrap();
    /// let r = later.call(&[&t(r#"["2024-01-02", "1999-12-31"]"#), &t(r#"["2024-01-01", "2000-01-01"]"#)])?;
    /// assert_eq!(r.to_string(), "[true, false]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for another number of inputs or a type
    /// stored otherwise.
    pub fn retyped(
        &self,
        inputs: &[dynd_types::Scalar],
        output: dynd_types::Scalar,
    ) -> Result<Leaf, Error> {
        // A string stays a string (its storage is its own), so a string
        // leaf's text arguments and result keep their types.
        let same = |a: dynd_types::Scalar, b: dynd_types::Scalar| a.storage() == b.storage();
        if inputs.len() != self.inputs.len()
            || !inputs.iter().zip(&self.inputs).all(|(a, b)| same(*a, *b))
            || !same(output, self.output)
        {
            return Err(Error::Unsupported {
                operation: "retyping a leaf to types stored otherwise",
                ty: output.into(),
            });
        }
        let mut leaf = self.clone();
        leaf.inputs = inputs.iter().copied().collect();
        leaf.output = output;
        // A float operation's marker would let fusion read the new
        // types as floats.
        leaf.f64_op = None;
        Ok(leaf)
    }

    /// The input element types, in order.
    pub fn inputs(&self) -> &[dynd_types::Scalar] {
        &self.inputs
    }

    /// The output element type.
    pub fn output(&self) -> dynd_types::Scalar {
        self.output
    }

    /// Per input, whether the function takes it as an option (`?T`).
    pub fn options(&self) -> &[bool] {
        &self.options
    }

    /// Whether the function's result is an option (`?R`).
    pub fn output_option(&self) -> bool {
        self.output_option
    }

    /// The result's data type for arguments of these data types: `?R` when
    /// the function returns an option, or when an option argument meets a
    /// plain parameter (NA propagates); `R` otherwise.
    pub fn result_type(&self, dtypes: &[&Type]) -> Result<Type, Error> {
        let propagates = dtypes
            .iter()
            .zip(self.options.iter().chain(std::iter::repeat(&false)))
            .any(|(t, takes)| !takes && matches!(t.kind(), TypeKind::Option(_)));
        Ok(if self.output_option || propagates {
            Type::option(self.output.into())?
        } else {
            self.output.into()
        })
    }

    /// The loop without a kernel, for a leaf that cannot fail.
    pub(crate) fn flat_run(&self) -> Option<std::sync::Arc<dyn FlatRun>> {
        self.flat.clone()
    }

    /// Whether `other` runs the same function (a clone of this leaf).
    pub(crate) fn same_function(&self, other: &Leaf) -> bool {
        let same = match (&self.push, &other.push) {
            (Push::Elements(a), Push::Elements(b)) => std::sync::Arc::ptr_eq(a, b),
            (Push::Text { push: a, .. }, Push::Text { push: b, .. }) => {
                std::sync::Arc::ptr_eq(a, b)
            }
            _ => false,
        };
        same && self.inputs == other.inputs && self.options == other.options
    }

    /// Checks arguments of data types `dtypes` and a result of data type
    /// `out` against the leaf's types: what [`Leaf::push_fitted`] needs to
    /// build its kernel for them.
    ///
    /// # Errors
    ///
    /// [`Error::Arity`], [`Error::ArgumentType`] naming the argument, or
    /// [`Error::DtypeMismatch`] for the result.
    pub(crate) fn fit(&self, dtypes: &[&Type], out: &Type) -> Result<LeafFit, Error> {
        if dtypes.len() != self.inputs.len() {
            return Err(Error::Arity {
                name: format!("{self:?}"),
                expected: self.inputs.len(),
                found: dtypes.len(),
            });
        }
        // An option argument `?T` feeds a leaf taking `T`; NA in any
        // argument makes the result NA (so the result must be an option).
        let mut flags: SmallVec<[Option<usize>; INLINE_ARGS]> = smallvec![None; dtypes.len()];
        for (i, ((a, t), takes_option)) in dtypes
            .iter()
            .zip(&self.inputs)
            .zip(&self.options)
            .enumerate()
        {
            let (value, is_option) = match a.kind() {
                TypeKind::Option(inner) => (inner.element_scalar(), true),
                _ => (a.element_scalar(), false),
            };
            if value != Some(*t) || (*takes_option && !is_option) {
                let scalar: Type = (*t).into();
                return Err(Error::ArgumentType {
                    arg: i,
                    found: (*a).clone(),
                    expected: if *takes_option {
                        Type::option(scalar)?
                    } else {
                        scalar
                    },
                    what: "the function".into(),
                });
            }
            if is_option && !takes_option {
                flags[i] = Some(t.size());
            }
        }
        let any_option = flags.iter().any(Option::is_some);
        let out_option = match out.kind() {
            TypeKind::Option(inner) if inner.element_scalar() == Some(self.output) => true,
            _ if out.element_scalar() == Some(self.output)
                && !any_option
                && !self.output_option =>
            {
                false
            }
            _ => {
                let wanted: Type = if any_option || self.output_option {
                    Type::option(self.output.into())?
                } else {
                    self.output.into()
                };
                return Err(Error::DtypeMismatch {
                    actual: out.clone(),
                    requested: wanted,
                });
            }
        };
        Ok(LeafFit { flags, out_option })
    }

    /// Pushes the leaf's kernel for arguments and a result as `fit` found
    /// them, wrapped in NA propagation where an option argument meets a
    /// plain parameter. A leaf over strings needs `env`, the arguments'
    /// text blocks and the result's arena.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for a leaf over strings without `env` (a
    /// fused program, whose buffers have no text block).
    pub(crate) fn push_fitted(
        &self,
        b: &mut KernelBuilder<'_>,
        fit: &LeafFit,
        env: Option<&text::TextEnv>,
    ) -> Result<Child, Error> {
        let child = match (&self.push, env) {
            (Push::Elements(push), _) => push(b),
            (Push::Text { push, .. }, Some(env)) => push(b, env)?,
            (Push::Text { .. }, None) => {
                return Err(Error::Unsupported {
                    operation: "a string function inside a fused loop",
                    ty: self.output.into(),
                })
            }
        };
        let any_option = fit.flags.iter().any(Option::is_some);
        // A function returning an option writes the result's flag itself;
        // NA around it only needs a wrapper when it propagates.
        if !fit.out_option || (self.output_option && !any_option) {
            return Ok(child);
        }
        Ok(b.push(NaLeaf {
            flags: fit.flags.clone(),
            nsrc: fit.flags.len(),
            out_flag: self.output.size(),
            child_sets_flag: self.output_option,
            child,
        }))
    }

    /// Whether the leaf reads strings' characters or writes strings: its
    /// kernel needs the arrays' text blocks, so it runs only where they
    /// are known (not in a fused loop, not on the flat paths).
    pub fn reads_text(&self) -> bool {
        matches!(self.push, Push::Text { .. })
    }
}

/// [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into).
pub(crate) fn apply_into(this: &mut Array, srcs: &[&Array], leaf: &Leaf) -> Result<(), Error> {
    apply_into_with(this, srcs, leaf, true)
}

/// As [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into), for
/// arguments a [`FlatPlan`] of `this`'s type has already refused: the flat
/// path is not asked again (a callable asks it once, through the plan its
/// resolution made).
///
/// # Errors
///
/// As [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into).
pub fn apply_general_into(this: &mut Array, srcs: &[&Array], leaf: &Leaf) -> Result<(), Error> {
    apply_into_with(this, srcs, leaf, false)
}

/// [`apply_into`], trying the flat path first when `flat`.
fn apply_into_with(
    this: &mut Array,
    srcs: &[&Array],
    leaf: &Leaf,
    flat: bool,
) -> Result<(), Error> {
    let dtypes: SmallVec<[&Type; INLINE_ARGS]> = srcs.iter().map(|a| a.dtype()).collect();
    let fit = leaf.fit(&dtypes, this.dtype())?;
    if flat && !fit.out_option && flat::apply_flat_into(this, srcs, leaf)? {
        return Ok(());
    }
    crate::assign::make_unique(this)?;
    if leaf.reads_text() {
        return text::apply_text_into(this, srcs, leaf, &fit);
    }
    let (ty, meta) = (this.ty().clone(), this.arrmeta_arc());
    let pairs: SmallVec<[(&Type, &Arrmeta); INLINE_ARGS]> =
        srcs.iter().map(|a| (a.ty(), a.arrmeta())).collect();
    let mut builder = KernelBuilder::new();
    push_elwise(&mut builder, (&ty, &meta), &pairs, &mut |b| {
        leaf.push_fitted(b, &fit, None)
    })?;
    let kernel = builder.finish()?;
    // SAFETY: built just above for this array and `srcs`, whose data
    // types were checked against the leaf's (options around them are
    // handled by `NaLeaf`, whose flag offsets follow the option
    // layout), and a `Leaf` is only made from functions over exactly
    // those element types.
    unsafe { run_into(this, &kernel, srcs) }
}

/// How a leaf meets the data types of its arguments and result (see
/// [`Leaf::fit`]).
#[derive(Clone)]
pub(crate) struct LeafFit {
    /// Per argument: the offset of its NA flag, if it is an option fed to
    /// a plain parameter.
    flags: SmallVec<[Option<usize>; INLINE_ARGS]>,
    /// Whether the result is an option.
    pub(crate) out_option: bool,
}

/// NA propagation around a leaf: if any option argument is NA, the result
/// is NA; otherwise the leaf runs on the values and the result is valid.
/// An option's validity flag is the byte after its value.
struct NaLeaf {
    /// Per argument: the offset of its flag, if it is an option.
    flags: SmallVec<[Option<usize>; INLINE_ARGS]>,
    nsrc: usize,
    /// The offset of the result's flag.
    out_flag: usize,
    /// Whether the child writes the result's flag (it returns an option).
    child_sets_flag: bool,
    child: Child,
}

impl KernelData for NaLeaf {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: each flag lies inside its (valid) element, by the
        // option layout the offsets were computed from.
        let any_na = self.flags[..self.nsrc].iter().zip(src).any(|(f, p)| {
            // SAFETY: as above.
            f.is_some_and(|off| unsafe { *p.add(off) } == 0)
        });
        // SAFETY: the result's flag lies inside its element.
        unsafe {
            if any_na {
                *dst.add(self.out_flag) = 0;
            } else {
                ctx.child(self.child).single(dst, src)?;
                if !self.child_sets_flag {
                    *dst.add(self.out_flag) = 1;
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        "NA propagation".into()
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// Runs `leaf` elementwise over `srcs` broadcast together, into a new array.
///
/// # Errors
///
/// As [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into); [`dynd_types::Error::Broadcast`] naming the
/// dimension; a ragged-row error naming the row whose lengths do not
/// broadcast.
pub fn apply(srcs: &[&Array], leaf: &Leaf) -> Result<Array, Error> {
    let dtypes: SmallVec<[&Type; INLINE_ARGS]> = srcs.iter().map(|a| a.dtype()).collect();
    let out = leaf.result_type(&dtypes)?;
    let types = srcs
        .iter()
        .map(|a| Type::with_dims(a.shape(), out.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let ty = dynd_types::broadcast(&types, dynd_types::BroadcastMode::NumPy)?;
    apply_typed(&ty, srcs, leaf)
}

/// As [`apply`], when the result type `ty` (the broadcast of the
/// arguments' dimensions over the leaf's output type) is already known,
/// as a callable's cached resolution gives it.
///
/// # Errors
///
/// As [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into); a ragged-row error naming the row.
pub fn apply_typed(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Array, Error> {
    if let Some(out) = apply_flat(ty, srcs, leaf)? {
        return Ok(out);
    }
    apply_general(ty, srcs, leaf)
}

/// As [`apply_typed`], for arguments a [`FlatPlan`] of result type `ty`
/// has already refused: the flat path is not asked again (a callable asks
/// it once, through the plan its resolution made); ragged results and
/// kernels are.
///
/// # Errors
///
/// As [`apply_typed`].
pub fn apply_general(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Array, Error> {
    if ty.has_var_dim() {
        if let Some(out) = ragged::apply_ragged(ty, srcs, leaf)? {
            return Ok(out);
        }
    }
    // A dense result of the leaf's own number (or `bool`) type has each
    // element written below, whole, by the leaf (or is dropped with the
    // error), as `apply_flat`'s: not cleared first, which for a large
    // result is a pass over memory as long as the kernel's own. Strings
    // and bytes, whose elements point into memory, are always cleared.
    let plain = leaf.output.is_numeric() && ty.dtype().as_scalar() == Some(leaf.output);
    let mut out = if plain && !ty.has_var_dim() {
        Array::for_overwrite(ty)?
    } else {
        alloc_broadcast(ty, srcs)?
    };
    apply_into_with(&mut out, srcs, leaf, false)?;
    Ok(out)
}
