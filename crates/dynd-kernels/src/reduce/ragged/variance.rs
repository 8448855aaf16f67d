//! The variance of each row in two passes while it is in cache, and the mean of rows.

use super::*;

/// The variance (as `fin` finishes it) of each row of `rows` into `out`,
/// in two passes over each row while it is in cache: the row's sum folds
/// as [`fold_unit_wide`] folds it, in masked blocks of [`WIDE`] lanes and
/// batches of [`BATCH`] rows, and its mean is that over its length; the
/// squared deviations from the mean then fold the same way, the lanes
/// past the row's end holding the mean (a deviation of zero). An empty
/// row's variance is NaN; rows longer than [`BLOCK`] fold as `long`
/// folds them. `None` when the rows are not contiguous, aligned `T`s.
pub(crate) fn variance_each_row<T: Float>(
    rows: &Rows<'_>,
    out: &mut [T],
    fin: Finish,
    long: impl Fn(&[T]) -> T + Sync,
    name: &str,
) -> Option<Result<(), Error>> {
    let walk = rows.slices::<T>()?;
    let work = var_unit_work(&walk, fin, &long, name, same)?;
    Some(each_unit(out, work))
}

/// The work of one unit of [`variance_each_row`] for [`each_unit`] to
/// run, each row's result `post(variance, row length)` (of any type:
/// [`variance_of_rows`] writes `?T` slots); `None` when the rows' element
/// words are not aligned lanes.
fn var_unit_work<'r, 'a, T, L, P, O>(
    walk: &'r RowSlices<'a, T>,
    fin: Finish,
    long: &'r L,
    name: &'r str,
    post: P,
) -> Option<impl UnitWork<O> + use<'r, 'a, T, L, P, O>>
where
    T: Float,
    L: Fn(&[T]) -> T + Sync,
    P: Fn(T, usize) -> O + Copy + Sync,
{
    let wide = match walk.lanes::<u64>() {
        Some(l) => Wide::U64(l),
        None => Wide::U32(walk.lanes::<u32>()?),
    };
    let unit = VarUnit {
        rows: walk,
        fin,
        long,
        name,
    };
    Some(move |first, chunk: &mut [O]| match wide {
        Wide::U64(lanes) => unit.run_best(lanes, first, chunk, post),
        Wide::U32(lanes) => unit.run_best(lanes, first, chunk, post),
    })
}

/// What [`VarUnit::run`] folds: the rows, how each variance finishes, how
/// a row longer than [`BLOCK`] folds, and the operation's name.
pub(super) struct VarUnit<'r, 'a, T, L> {
    pub(super) rows: &'r RowSlices<'a, T>,
    pub(super) fin: Finish,
    pub(super) long: &'r L,
    pub(super) name: &'r str,
}

/// `a + b`, as a function the folds inline.
#[inline(always)]
pub(super) fn add<T: Float>(a: T, b: T) -> T {
    a + b
}

impl<T: Float, L: Fn(&[T]) -> T> VarUnit<'_, '_, T, L> {
    /// [`Self::run`] compiled for the CPU it runs on, as
    /// [`fold_unit_wide_best`] is.
    pub(super) fn run_best<B: Lane, O>(
        &self,
        lanes: &[B],
        first: usize,
        out: &mut [O],
        post: impl Fn(T, usize) -> O + Copy,
    ) -> Result<(), Box<(usize, Error)>> {
        // SAFETY: `Isa::active` is a set this CPU has.
        unsafe { self.run_on(crate::isa::Isa::active(), lanes, first, out, post) }
    }

    /// [`Self::run`] compiled for `isa`.
    ///
    /// # Safety
    ///
    /// The CPU has `isa`.
    pub(super) unsafe fn run_on<B: Lane, O>(
        &self,
        isa: crate::isa::Isa,
        lanes: &[B],
        first: usize,
        out: &mut [O],
        post: impl Fn(T, usize) -> O + Copy,
    ) -> Result<(), Box<(usize, Error)>> {
        // SAFETY: the CPU has `isa` (the caller's contract).
        unsafe { crate::isa::on!(isa, self.run(lanes, first, out, post)) }
    }

    /// The variance of rows `first..` into `out`, as [`variance_each_row`]
    /// describes, one batch of rows at a time: each pass folds the batch's
    /// rows to [`QUAD`] lanes before finishing them (see [`QUAD`]). Each
    /// row's result is `post(variance, row length)`, written as the batch
    /// finishes.
    #[inline(always)]
    pub(super) fn run<B: Lane, O>(
        &self,
        lanes: &[B],
        first: usize,
        out: &mut [O],
        post: impl Fn(T, usize) -> O + Copy,
    ) -> Result<(), Box<(usize, Error)>> {
        let VarUnit {
            rows,
            fin,
            long,
            name,
        } = *self;
        let outside = |r: usize| Box::new((r, outside(name, "a var row")));
        let mut quads = [[T::ZERO; QUAD]; BATCH];
        let mut spans = [None; BATCH];
        let mut lens = [0usize; BATCH];
        let mut means = [T::ZERO; BATCH];
        let mut vals = [T::ZERO; BATCH];
        for (b, batch) in out.chunks_mut(BATCH).enumerate() {
            let first = first + b * BATCH;
            let n = batch.len().min(BATCH);
            batch_spans(rows, first, &mut spans[..n]);
            for i in 0..n {
                lens[i] = fold_quad(lanes, spans[i], T::ZERO, &add, &mut quads[i]);
            }
            // The divisions and roots of the batch run side by side (those
            // of empty and slow rows too, unused): one row's alone would
            // wait on the divider.
            for i in 0..n {
                means[i] = finish(quads[i], &add);
            }
            for i in 0..n {
                means[i] = means[i] / T::of_count(lens[i]);
            }
            for i in 0..n {
                if lens[i] != 0 && lens[i] != SLOW {
                    let mean = means[i];
                    let dev = |x: T| (x - mean) * (x - mean);
                    let span = spans[i].unwrap_or_default();
                    match fold_wide(lanes, span, mean, &dev, &add) {
                        Some(q) => quads[i] = q,
                        None => lens[i] = SLOW,
                    }
                }
            }
            for i in 0..n {
                vals[i] = finish(quads[i], &add);
            }
            fin.of_each(&mut vals[..n], &lens[..n]);
            for (i, o) in batch.iter_mut().enumerate() {
                let (v, len) = match lens[i] {
                    0 => (T::NAN, 0),
                    SLOW => {
                        let xs = rows.get(first + i).ok_or_else(|| outside(first + i))?;
                        let v = match xs.len() {
                            0 => T::NAN,
                            len if len > BLOCK => long(xs),
                            len => {
                                // One of the last few: in the blocks' order, so
                                // a row's variance does not depend on where it
                                // lies.
                                let sum = fold_wide_slice(xs, T::ZERO, &itself, &add);
                                let mean = sum / T::of_count(len);
                                let dev = |x: T| (x - mean) * (x - mean);
                                fin.of(fold_wide_slice(xs, mean, &dev, &add), len)
                            }
                        };
                        (v, xs.len())
                    }
                    len => (vals[i], len),
                };
                *o = post(v, len);
            }
        }
        Ok(())
    }
}

/// The fold's result as it is (no `post` step).
#[inline(always)]
pub(super) fn same<T>(v: T, _: usize) -> T {
    v
}

/// The mean of each row of `a` (fixed dimensions around an innermost
/// `var` of `T`: `axis=-1`, no mask) as `?T`, NA for an empty row (the
/// `mean` builtin's result), `keepdims` as [`ReduceArgs`] has it: each
/// unit of rows summed by `sum` (the bits [`reduce`](crate::reduce::reduce)
/// gives), divided by its rows' lengths (`of_len`, read from the row
/// metadata) and written with its validity as the fold finishes each row
/// — one pass over the rows and the result, no count array, no buffer
/// (rows of a reduction without a neutral element go through a buffer of
/// each unit's sums, in cache).
/// `None` when the rows are not contiguous, aligned `T`s (the caller
/// divides the sum:
/// [`divide_by_row_lengths`](crate::reduce::divide_by_row_lengths)).
///
/// ```
/// use dynd::func::raw::{mean_of_rows, Reduction};
/// use dynd::nd::array;
///
/// let a = array![[1.0, 2.0, 6.0], [], [4.0]];
/// let sum = Reduction { identity: Some(0.0), combine: |x: f64, y: f64| x + y, reorderable: true, neutral: Some(-0.0), run: None };
/// let m = mean_of_rows(&a, false, &sum, |n| n as f64, "mean")?.expect("contiguous rows");
/// assert_eq!(m.to_string(), "[3, null, 4]");
/// assert_eq!(m.ty().to_string(), "3 * ?float64");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// An error from the fold (a row outside its block: never, for a
/// validated array).
pub fn mean_of_rows<T, F>(
    a: &Array,
    keepdims: bool,
    sum: &Reduction<T, F>,
    of_len: impl Fn(usize) -> T + Sync,
    name: &str,
) -> Result<Option<Array>, Error>
where
    T: Float,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let Some(rows) = Rows::of(a) else {
        return Ok(None);
    };
    let Some(walk) = rows.slices::<T>() else {
        return Ok(None);
    };
    let divide = |s: T, len: usize| s / of_len(len);
    // Where the rows fold in wide blocks, each slot is written in the
    // fold's pass; else the sums go through a buffer (`na_unit`).
    let slot = |s: T, len: usize| NaSlot::new((len > 0).then(|| divide(s, len)));
    let result = match wide_folder(&walk, sum, sum.identity, name, slot) {
        Some(work) => rows_or_na(&rows, keepdims, work),
        None => {
            let work = unit_folder(&rows, &walk, sum, sum.identity, name, Some(divide));
            rows_or_na(&rows, keepdims, na_unit(&rows, &walk, name, work))
        }
    };
    result
}

/// The variance of each row of `a` (or its root, as `fin` finishes it;
/// fixed dimensions around an innermost `var` of `T`: `axis=-1`, no mask)
/// as `?T`, NA for an empty row (the `var` and `std` builtins' result), in
/// [`variance_each_row`]'s passes, each unit's results written with their
/// validity while in cache. `None` when the rows are not contiguous,
/// aligned `T`s.
pub(crate) fn variance_of_rows<T: Float>(
    a: &Array,
    keepdims: bool,
    fin: Finish,
    long: impl Fn(&[T]) -> T + Sync,
    name: &str,
) -> Result<Option<Array>, Error> {
    let Some(rows) = Rows::of(a) else {
        return Ok(None);
    };
    let Some(walk) = rows.slices::<T>() else {
        return Ok(None);
    };
    // Each slot written as its batch finishes: NA for an empty row.
    let slot = |v: T, len: usize| NaSlot::new((len > 0).then_some(v));
    let Some(work) = var_unit_work(&walk, fin, &long, name, slot) else {
        return Ok(None);
    };
    rows_or_na(&rows, keepdims, work)
}

/// A fresh `dims * ?T` array of one result per row of `rows` (a `1`
/// dimension after them with `keepdims`), its slots written by `work`
/// unit by unit ([`each_unit`]).
fn rows_or_na<T: Float>(
    rows: &Rows<'_>,
    keepdims: bool,
    work: impl UnitWork<NaSlot<T>>,
) -> Result<Option<Array>, Error> {
    let mut dims: Vec<usize> = rows.shape().to_vec();
    if keepdims {
        dims.push(1);
    }
    let out_ty = Type::with_dims(
        dims.iter().map(|n| Dim::Fixed(*n)),
        Type::option(T::SCALAR.into())?,
    )?;
    let mut out = Array::for_overwrite(&out_ty)?;
    let Some(slots) = crate::reduce::fresh_na_slots::<T>(&mut out) else {
        return Ok(None);
    };
    each_unit(slots, work)?;
    Ok(Some(out))
}
