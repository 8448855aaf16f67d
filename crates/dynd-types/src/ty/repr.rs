//! A [`Type`](super::Type) in one word, as libdynd kept its types: a
//! builtin scalar is its id in the word itself (shifted, with the low bit
//! set), any other type the address of its reference-counted [`Node`]
//! (aligned, so the low bit is clear). A type is then the size of a
//! pointer, an `Option<Type>` too, and an array holding one has no padding
//! between its fields: results move through registers and whole words, not
//! a tag byte and an odd offset. Cloning a scalar copies the word; cloning
//! a node counts one more reference, as an `Arc` does.
//!
//! The only unsafe code of the crate is here: the word is turned back into
//! an `Arc<Node>` (whose count it holds) only when its low bit is clear.

use std::hash::{Hash, Hasher};
use std::ptr::NonNull;
use std::sync::Arc;

use super::TypeKind;
use crate::scalar::Scalar;

/// A type that is not a builtin scalar: its kind, and how many levels deep
/// it nests (so that the limit is checked in O(1) per construction).
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Node {
    pub(crate) kind: TypeKind,
    pub(crate) levels: usize,
}

/// A scalar id or a node's address; see the [module docs](self).
pub(crate) struct Repr(NonNull<Node>);

/// What a [`Repr`] holds.
pub(crate) enum View<'a> {
    Scalar(Scalar),
    Node(&'a Node),
}

// SAFETY: a `Repr` is either a plain number or an `Arc<Node>` it owns one
// count of; `Arc<Node>` is `Send + Sync` (checked below), so sharing or
// moving the word across threads is as sound as doing so with the `Arc`.
unsafe impl Send for Repr {}
// SAFETY: as for `Send`.
unsafe impl Sync for Repr {}

const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Arc<Node>>();
};

impl Repr {
    /// The word of builtin scalar `s`.
    #[inline]
    pub(crate) fn scalar(s: Scalar) -> Repr {
        let bits = ((s as usize) << 1) | 1;
        match NonNull::new(std::ptr::without_provenance_mut(bits)) {
            Some(p) => Repr(p),
            None => unreachable!("an odd word is not null"),
        }
    }

    /// The word of a new node.
    pub(crate) fn node(node: Node) -> Repr {
        let p = Arc::into_raw(Arc::new(node)).cast_mut();
        match NonNull::new(p) {
            Some(p) => Repr(p),
            None => unreachable!("an Arc is never at address 0"),
        }
    }

    /// Whether the word is a scalar's id (low bit set).
    #[inline(always)]
    fn is_scalar(&self) -> bool {
        self.0.as_ptr().addr() & 1 == 1
    }

    /// The builtin scalar's id (its index in [`Scalar::ALL`]), if the
    /// word is one: for tables indexed by scalar, one load.
    #[inline(always)]
    pub(crate) fn scalar_id(&self) -> Option<usize> {
        self.is_scalar().then(|| self.0.as_ptr().addr() >> 1)
    }

    /// What the word holds.
    #[inline(always)]
    pub(crate) fn view(&self) -> View<'_> {
        if self.is_scalar() {
            View::Scalar(Scalar::ALL[self.0.as_ptr().addr() >> 1])
        } else {
            // SAFETY: a word with its low bit clear came from
            // `Arc::into_raw` in `node` (a scalar's word is odd), and this
            // `Repr` holds one count of that `Arc` until it is dropped, so
            // the node lives at least as long as `&self`.
            View::Node(unsafe { self.0.as_ref() })
        }
    }

    /// The builtin scalar, if the word is one.
    #[inline(always)]
    pub(crate) fn as_scalar(&self) -> Option<Scalar> {
        match self.view() {
            View::Scalar(s) => Some(s),
            View::Node(_) => None,
        }
    }
}

impl Clone for Repr {
    #[inline]
    fn clone(&self) -> Repr {
        if !self.is_scalar() {
            // SAFETY: the word is an `Arc<Node>`'s (see `view`), alive
            // while `self` is; the new `Repr` owns the count taken here.
            unsafe { Arc::increment_strong_count(self.0.as_ptr()) };
        }
        Repr(self.0)
    }
}

impl Drop for Repr {
    #[inline]
    fn drop(&mut self) {
        if !self.is_scalar() {
            // SAFETY: the word is an `Arc<Node>`'s (see `view`) and this
            // `Repr` owns one count of it, given back here exactly once.
            drop(unsafe { Arc::from_raw(self.0.as_ptr()) });
        }
    }
}

impl PartialEq for Repr {
    #[inline]
    fn eq(&self, other: &Repr) -> bool {
        // The same word is the same type (a scalar, or one node); two
        // nodes may still be equal types.
        self.0 == other.0
            || match (self.view(), other.view()) {
                (View::Node(a), View::Node(b)) => a == b,
                _ => false,
            }
    }
}

impl Eq for Repr {}

impl Hash for Repr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.view() {
            View::Scalar(s) => {
                state.write_u8(0);
                s.hash(state);
            }
            View::Node(n) => {
                state.write_u8(1);
                n.hash(state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_word_and_a_niche() {
        assert_eq!(std::mem::size_of::<Repr>(), std::mem::size_of::<usize>());
        assert_eq!(
            std::mem::size_of::<Option<Repr>>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn every_scalar_round_trips_and_nodes_count() {
        for s in Scalar::ALL {
            let r = Repr::scalar(s);
            assert_eq!(r.as_scalar(), Some(s));
            assert_eq!(r.scalar_id(), Some(s as usize));
            assert_eq!(super::super::Type::from(s).kind(), &TypeKind::Scalar(s));
            assert!(r == r.clone());
        }
        let kind = TypeKind::Option(super::super::Type::from(Scalar::Int8));
        let a = Repr::node(Node { kind, levels: 2 });
        let b = a.clone();
        let View::Node(n) = a.view() else {
            panic!("a node")
        };
        assert_eq!(n.levels, 2);
        assert!(a == b && a.as_scalar().is_none() && a.scalar_id().is_none());
        assert!(a != Repr::scalar(Scalar::Int8));
        drop(a);
        // `b` holds its own count: the node is still there.
        let View::Node(n) = b.view() else {
            panic!("a node")
        };
        assert_eq!(n.levels, 2);
    }
}
