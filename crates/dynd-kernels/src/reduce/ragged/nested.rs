//! Reductions of any nesting of fixed and `var` dimensions (`var * var *
//! T`, `N * var * var * T`, `var * 3 * T`, …), over any of their axes.
//!
//! The array is read as its [`Levels`] (each
//! dimension's list lengths, and the values in C order). Reducing an axis
//! merges, for each list of that dimension, the subtrees of its elements
//! into one, lined up by position at every level below (left-aligned, as
//! for `N * var * T`): element `j` of a merged `var` list folds element
//! `j` of every list that has one, so the merged list is as long as the
//! longest, and a fixed dimension keeps its size. Several axes reduce one
//! after another, the innermost first: a reorderable fold gives the same
//! result as folding them together.

use dynd_array::{Item, Levels};

use super::*;

/// An array's levels with each value lifted into an accumulator, `None`
/// where no element is (masked out, or a position no list reaches).
pub(crate) struct Tree<S> {
    dims: Vec<Dim>,
    lengths: Vec<Vec<usize>>,
    /// `starts[k][i]`: where list `i` of dimension `k` starts among the
    /// lists (or values) of dimension `k + 1`.
    starts: Vec<Vec<usize>>,
    leaves: Vec<Option<S>>,
}

impl<S: Copy> Tree<S> {
    fn new(dims: Vec<Dim>, lengths: Vec<Vec<usize>>, leaves: Vec<Option<S>>) -> Tree<S> {
        let starts = lengths
            .iter()
            .map(|ls| {
                let mut at = 0;
                ls.iter()
                    .map(|l| {
                        let s = at;
                        at += l;
                        s
                    })
                    .collect()
            })
            .collect();
        Tree {
            dims,
            lengths,
            starts,
            leaves,
        }
    }

    /// The tree with dimension `axis` folded away (kept with size 1 when
    /// `keepdims`).
    fn reduce_axis(&self, axis: usize, keepdims: bool, f: &impl Fn(S, S) -> S) -> Tree<S> {
        let mut dims = self.dims.clone();
        if keepdims {
            dims[axis] = Dim::Fixed(1);
        } else {
            dims.remove(axis);
        }
        let mut lengths: Vec<Vec<usize>> = self.lengths[..axis].to_vec();
        lengths.resize(dims.len(), Vec::new());
        let mut out = Tree {
            starts: Vec::new(),
            dims,
            lengths,
            leaves: Vec::new(),
        };
        let below = if keepdims { axis + 1 } else { axis };
        let mut kids = Vec::new();
        for (&start, &len) in self.starts[axis].iter().zip(&self.lengths[axis]) {
            if keepdims {
                out.lengths[axis].push(1);
            }
            kids.clear();
            kids.extend(start..start + len);
            self.merge(axis + 1, &kids, &mut out, below, f);
        }
        Tree::new(out.dims, out.lengths, out.leaves)
    }

    /// Merges the subtrees at `nodes` (lists of dimension `level`, or
    /// values past the last) into one, appended to `out` at its dimension
    /// `at`.
    fn merge(
        &self,
        level: usize,
        nodes: &[usize],
        out: &mut Tree<S>,
        at: usize,
        f: &impl Fn(S, S) -> S,
    ) {
        if level == self.dims.len() {
            let v = nodes.iter().filter_map(|&i| self.leaves[i]).reduce(f);
            out.leaves.push(v);
            return;
        }
        let lens = &self.lengths[level];
        let len = match self.dims[level] {
            Dim::Fixed(m) => m,
            _ => nodes.iter().map(|&i| lens[i]).max().unwrap_or(0),
        };
        out.lengths[at].push(len);
        let starts = &self.starts[level];
        let mut kids = Vec::with_capacity(nodes.len());
        for p in 0..len {
            kids.clear();
            kids.extend(
                nodes
                    .iter()
                    .filter(|&&i| lens[i] > p)
                    .map(|&i| starts[i] + p),
            );
            self.merge(level + 1, &kids, out, at + 1, f);
        }
    }
}

/// The tree of `a` (of type `T`, any fixed and `var` dimensions): each
/// element lifted into an accumulator (`lift`), or `None` where `mask` (in
/// `a`'s shape) drops it.
pub(crate) fn tree_of<T: Element, S: Copy>(
    a: &Array,
    mask: Option<&Array>,
    lift: impl Fn(T) -> S,
    name: &str,
) -> Result<Tree<S>, Error> {
    let Levels {
        dims,
        lengths,
        values,
    } = a.to_levels::<T>()?;
    let mut leaves: Vec<Option<S>> = values.into_iter().map(|x| Some(lift(x))).collect();
    if let Some(mask) = mask {
        let m = mask_like::<T>(mask, a, name)?.to_levels::<bool>()?;
        if m.lengths != lengths {
            return Err(mask_mismatch(mask, a, name));
        }
        for (leaf, keep) in leaves.iter_mut().zip(m.values) {
            if !keep {
                *leaf = None;
            }
        }
    }
    Ok(Tree::new(dims, lengths, leaves))
}

/// The tree of `a`'s shape (any data type), each element counting 1.
pub(crate) fn ones_of(a: &Array) -> Result<Tree<i64>, Error> {
    let Levels {
        dims,
        lengths,
        values,
    } = a.level_lengths()?;
    Ok(Tree::new(
        dims,
        lengths,
        values.iter().map(|()| Some(1)).collect(),
    ))
}

/// `tree` folded by `f` over `axes` (normalised, sorted), each result
/// position finished by `finish` (`None` for a position with no element).
pub(crate) fn fold_tree<S: Copy, U: Item>(
    mut tree: Tree<S>,
    axes: &[usize],
    keepdims: bool,
    f: impl Fn(S, S) -> S,
    finish: impl Fn(Option<S>) -> Result<U, Error>,
) -> Result<Array, Error> {
    for &axis in axes.iter().rev() {
        tree = tree.reduce_axis(axis, keepdims, &f);
    }
    let values = tree
        .leaves
        .into_iter()
        .map(finish)
        .collect::<Result<Vec<U>, Error>>()?;
    Array::from_levels(Levels {
        dims: tree.dims,
        lengths: tree.lengths,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(a: &Array, axes: &[usize], keepdims: bool) -> String {
        let tree = tree_of(a, None, |x: i64| x, "sum").unwrap();
        let f = |x: i64, y: i64| x + y;
        fold_tree(tree, axes, keepdims, f, |v| Ok(v.unwrap_or(0)))
            .unwrap()
            .to_string()
    }

    fn ty(s: &str) -> Type {
        s.parse().unwrap()
    }

    #[test]
    fn var_var_over_each_axis() {
        let t = ty("var * var * int64");
        let a = Array::from_json("[[1, 2, 3], [], [4, 5], [6]]", Some(&t)).unwrap();
        assert_eq!(sum(&a, &[1], false), "[6, 0, 9, 6]");
        assert_eq!(sum(&a, &[0], false), "[11, 7, 3]");
        assert_eq!(sum(&a, &[0, 1], false), "21");
        assert_eq!(sum(&a, &[0], true), "[[11, 7, 3]]");
        assert_eq!(sum(&a, &[1], true), "[[6], [0], [9], [6]]");
    }

    #[test]
    fn deeper_and_mixed() {
        let t = ty("var * var * var * int64");
        let a = Array::from_json("[[[1, 2], [3]], [[4], [], [5, 6, 7]], []]", Some(&t)).unwrap();
        assert_eq!(sum(&a, &[2], false), "[[3, 3], [4, 0, 18], []]");
        assert_eq!(sum(&a, &[1], false), "[[4, 2], [9, 6, 7], []]");
        assert_eq!(sum(&a, &[0], false), "[[5, 2], [3], [5, 6, 7]]");
        assert_eq!(sum(&a, &[0, 2], false), "[7, 3, 18]");
        // A fixed dimension under a reduced var one keeps its size, even
        // where no list reaches it.
        let t = ty("2 * var * 2 * int64");
        let b = Array::from_json("[[[1, 2], [3, 4]], []]", Some(&t)).unwrap();
        assert_eq!(sum(&b, &[1], false), "[[4, 6], [0, 0]]");
    }
}
