//! The typed implementations of a callable: a leaf, a core leaf, or a whole-array function.

use super::*;

/// One typed implementation of a callable.
#[derive(Clone, Debug)]
pub struct Overload {
    pub(super) signature: Type,
    pub(super) body: Body,
}

/// What an overload runs.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Body {
    /// A scalar function, lifted over all the arguments' dimensions.
    Elementwise(Leaf),
    /// A function over core sub-arrays (a generalised ufunc), lifted over
    /// the dimensions before the cores.
    Core(CoreLeaf),
}

impl Overload {
    /// An elementwise overload from a leaf kernel; its signature is the
    /// leaf's types.
    pub fn new(leaf: Leaf) -> Overload {
        let ty = |s: Scalar, option: bool| {
            let t = Type::from(s);
            if option {
                Type::option(t).unwrap_or_else(|_| unreachable!("?scalar is a valid type"))
            } else {
                t
            }
        };
        let signature = Type::new(TypeKind::Callable(Signature {
            positional: leaf
                .inputs()
                .iter()
                .zip(leaf.options())
                .map(|(s, o)| ty(*s, *o))
                .collect(),
            variadic_positional: false,
            keywords: Vec::new(),
            variadic_keywords: false,
            ret: ty(leaf.output(), leaf.output_option()),
        }))
        .unwrap_or_else(|_| unreachable!("a scalar signature is always a valid type"));
        Overload {
            signature,
            body: Body::Elementwise(leaf),
        }
    }

    /// An overload over core dimensions; its signature is the leaf's,
    /// e.g. `(N * float64, N * float64) -> float64`.
    pub fn core(leaf: CoreLeaf) -> Overload {
        Overload {
            signature: leaf.signature().clone(),
            body: Body::Core(leaf),
        }
    }

    /// The signature, e.g. `(float64, float64) -> float64`.
    pub fn signature(&self) -> &Type {
        &self.signature
    }

    /// What the overload runs.
    pub fn body(&self) -> &Body {
        &self.body
    }

    /// The input element types, in order.
    pub fn inputs(&self) -> &[Scalar] {
        match &self.body {
            Body::Elementwise(l) => l.inputs(),
            Body::Core(l) => l.inputs(),
        }
    }

    /// The output element type.
    pub fn output(&self) -> Scalar {
        match &self.body {
            Body::Elementwise(l) => l.output(),
            Body::Core(l) => l.output(),
        }
    }

    /// Per input, whether the overload takes it as an option (`?T`).
    pub fn options(&self) -> &[bool] {
        const NONE: [bool; dynd_kernels::elwise::INLINE_ARGS] =
            [false; dynd_kernels::elwise::INLINE_ARGS];
        match &self.body {
            Body::Elementwise(l) => l.options(),
            Body::Core(l) => &NONE[..l.inputs().len()],
        }
    }

    /// The number of core dimensions of input `i` (0 for elementwise).
    pub(super) fn input_core(&self, i: usize) -> usize {
        match &self.body {
            Body::Elementwise(_) => 0,
            Body::Core(l) => l.input_core_ndims().get(i).copied().unwrap_or(0),
        }
    }
}
