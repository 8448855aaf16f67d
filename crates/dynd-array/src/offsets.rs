//! The byte offsets of an array's elements, in index order.
//!
//! Fixed dimensions are (size, stride) pairs; a walk hands out the offset
//! of every element in C order (last index fastest), whatever the strides.
//! Dimensions of size 1 are left out and a dimension that continues the
//! next one's run (stride = inner stride × inner size) is merged with it,
//! so the innermost loop is as long as the layout allows. Validation walks
//! every element's position with it, and the kernels use it wherever they
//! want offsets in index order (the positions of a result, of a sort's
//! lines, of a gathered core).

use smallvec::SmallVec;

/// Calls `f` with the byte offset of every element of the dimensions
/// `dims` (size, stride), in C order.
pub fn for_each_offset(dims: &[(usize, isize)], mut f: impl FnMut(isize)) {
    let done: Result<(), std::convert::Infallible> = try_for_each_offset(dims, |o| {
        f(o);
        Ok(())
    });
    let Ok(()) = done;
}

/// The loops over `dims`, outermost first: size-1 dimensions dropped and
/// runs merged; `None` when there are no elements. Out of line, so that
/// only the walk is compiled for each caller's function.
#[inline(never)]
fn merged_loops(dims: &[(usize, isize)]) -> Option<SmallVec<[(usize, isize); 8]>> {
    if dims.iter().any(|d| d.0 == 0) {
        return None;
    }
    let mut loops: SmallVec<[(usize, isize); 8]> = SmallVec::new();
    for &(size, stride) in dims.iter().filter(|d| d.0 != 1) {
        match loops.last_mut() {
            Some(last) if last.1 == stride.wrapping_mul(size as isize) => {
                last.0 *= size;
                last.1 = stride;
            }
            _ => loops.push((size, stride)),
        }
    }
    Some(loops)
}

/// As [`for_each_offset`], stopping at the first error `f` returns. The
/// arithmetic wraps, so offsets are exact whenever they fit in `isize`
/// (the steps past the end of a loop are computed but never handed out).
pub fn try_for_each_offset<E>(
    dims: &[(usize, isize)],
    mut f: impl FnMut(isize) -> Result<(), E>,
) -> Result<(), E> {
    let Some(loops) = merged_loops(dims) else {
        return Ok(());
    };
    let Some((&(n, step), outer)) = loops.split_last() else {
        return f(0);
    };
    let mut index: SmallVec<[usize; 8]> = SmallVec::from_elem(0, outer.len());
    let mut off = 0isize;
    loop {
        let mut o = off;
        for _ in 0..n {
            f(o)?;
            o = o.wrapping_add(step);
        }
        let mut k = outer.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            index[k] += 1;
            off = off.wrapping_add(outer[k].1);
            if index[k] < outer[k].0 {
                break;
            }
            off = off.wrapping_sub(outer[k].1.wrapping_mul(outer[k].0 as isize));
            index[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::for_each_offset;

    proptest! {
        #[test]
        fn offsets_are_a_naive_walks(
            dims in prop::collection::vec((0usize..5, -40isize..40), 0..=5),
        ) {
            let mut got = Vec::new();
            for_each_offset(&dims, |o| got.push(o));
            let mut want = vec![0isize];
            for &(size, stride) in &dims {
                want = want
                    .iter()
                    .flat_map(|&o| (0..size).map(move |i| o + i as isize * stride))
                    .collect();
            }
            prop_assert_eq!(got, want);
        }
    }
}
