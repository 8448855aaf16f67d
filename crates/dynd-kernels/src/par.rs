//! The one door to rayon: a few out-of-line helpers over closures behind
//! `&dyn Fn`, so that rayon's generic job machinery is compiled once for
//! the crate rather than once for every element type and kernel closure
//! of every parallel loop.
//!
//! A parallel loop here is a number of units (chunks of rows, runs of
//! elements), each done by one call of a closure given its index. Results
//! come back in unit order; outputs split into disjoint mutable parts go
//! through [`for_each_part`]. What a unit does — the loop over its
//! elements, compiled for an instruction set — stays inside the closure,
//! monomorphised there; only the hand-off is shared.
//!
//! ```text
//! let sums: Vec<f64> = par::map(chunks, &|i| fold(&xs[i * CHUNK..][..CHUNK]));
//! ```

use std::sync::Mutex;

/// How many threads a parallel loop gets (rayon's pool, or the one the
/// caller runs in).
#[inline]
pub fn threads() -> usize {
    rayon::current_num_threads()
}

/// Calls `f(i)` for every `i` in `0..units`, on rayon's threads.
#[inline(never)]
pub fn run(units: usize, f: &(dyn Fn(usize) + Sync)) {
    use rayon::prelude::*;
    (0..units).into_par_iter().for_each(f);
}

/// Whether `f(i)` is true for every `i` in `0..units`, run on rayon's
/// threads; after a false, the units not yet started are skipped.
pub fn all(units: usize, f: &(dyn Fn(usize) -> bool + Sync)) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let ok = AtomicBool::new(true);
    run(units, &|i| {
        if ok.load(Relaxed) && !f(i) {
            ok.store(false, Relaxed);
        }
    });
    ok.into_inner()
}

/// `f(i)` for every `i` in `0..units`, computed on rayon's threads, in
/// unit order.
pub fn map<R: Send>(units: usize, f: &(dyn Fn(usize) -> R + Sync)) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = (0..units).map(|_| Mutex::new(None)).collect();
    run(units, &|i| {
        let r = f(i);
        // Each slot is written by its own unit alone.
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| unreachable!("every unit ran"))
        })
        .collect()
}

/// `f(start, part)` for each part of `out` that is `chunk` elements long
/// (the last one shorter; `start` is its first index), on rayon's
/// threads.
pub fn for_chunks_mut<T: Send>(out: &mut [T], chunk: usize, f: &(dyn Fn(usize, &mut [T]) + Sync)) {
    let chunk = chunk.max(1);
    let parts: Vec<&mut [T]> = out.chunks_mut(chunk).collect();
    for_each_part(parts, &|i, part| f(i * chunk, part));
}

/// `f(i, part)` for each of `parts` (disjoint parts of an output, one per
/// unit), on rayon's threads.
pub fn for_each_part<P: Send>(parts: Vec<P>, f: &(dyn Fn(usize, &mut P) + Sync)) {
    map_parts(parts, f);
}

/// `Ok` with every unit's result in unit order, or the first error in
/// unit order.
pub fn try_map<R: Send, E: Send>(
    units: usize,
    f: &(dyn Fn(usize) -> Result<R, E> + Sync),
) -> Result<Vec<R>, E> {
    map(units, f).into_iter().collect()
}

/// What [`try_chunks_mut`] runs on each part: `f(start, part)`.
pub type TryPart<'a, T, E> = dyn Fn(usize, &mut [T]) -> Result<(), E> + Sync + 'a;

/// `f(start, part)` for each part of `out` that is `chunk` elements long
/// (the last one shorter; `start` is its first index), on rayon's
/// threads: `Ok`, or the first error in the order of the parts.
pub fn try_chunks_mut<T: Send, E: Send>(
    out: &mut [T],
    chunk: usize,
    f: &TryPart<'_, T, E>,
) -> Result<(), E> {
    let chunk = chunk.max(1);
    let parts: Vec<&mut [T]> = out.chunks_mut(chunk).collect();
    let results = map_parts(parts, &|i, part| f(i * chunk, part));
    results.into_iter().collect()
}

/// `f(i, part)` for each of `parts`, on rayon's threads, its results in
/// the order of the parts.
pub fn map_parts<P: Send, R: Send>(
    parts: Vec<P>,
    f: &(dyn Fn(usize, &mut P) -> R + Sync),
) -> Vec<R> {
    let parts: Vec<Mutex<P>> = parts.into_iter().map(Mutex::new).collect();
    map(parts.len(), &|i| {
        // Each part is locked by its own unit alone: never contended.
        let mut p = parts[i].lock().unwrap_or_else(|e| e.into_inner());
        f(i, &mut p)
    })
}
