//! The one wrapper that hands raw pointers to other threads.
//!
//! Raw pointers are neither `Send` nor `Sync`: the compiler cannot know
//! whether what they point at may be reached from another thread. The
//! loops hand pointers into arrays' blocks to rayon's threads (and kernel
//! records, which are shared, carry them), and why that is sound is the
//! same three facts each time:
//!
//! - the pointees outlive every thread that receives them (the caller
//!   holds the arrays for the whole call, and `rayon::scope` joins the
//!   threads before it returns);
//! - through a source pointer the threads only read;
//! - through a destination pointer different threads write disjoint
//!   elements.
//!
//! [`Shared::new`] is `unsafe`: each place that wraps pointers states in a
//! `// SAFETY:` comment why those facts hold for its value, and the
//! wrapper is then `Send` and `Sync` whatever it holds. No other type of
//! the kernel layer implements `Send` or `Sync` by hand for its pointers.

/// Plain data holding raw pointers, shareable with other threads by the
/// contract of [`Shared::new`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shared<T>(T);

impl<T> Shared<T> {
    /// Wraps `value` for other threads.
    ///
    /// # Safety
    ///
    /// `value` is plain data apart from raw pointers, and for as long as
    /// any thread holds the wrapper (or a copy): every pointee outlives
    /// it; through source pointers the threads only read; through
    /// destination pointers different threads write disjoint elements.
    #[inline(always)]
    pub(crate) const unsafe fn new(value: T) -> Shared<T> {
        Shared(value)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Copy> Shared<T> {
    /// The value (a method, so that closures capture the whole wrapper).
    #[inline(always)]
    pub(crate) fn get(self) -> T {
        self.0
    }
}

// SAFETY: by the contract of `Shared::new`, which every construction
// states for its value.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}
