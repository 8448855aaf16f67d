//! Expressions over arrays, evaluated lazily and fused.
//!
//! `&a * &b + &c` does not compute anything: it builds an [`Expr`] tree
//! whose leaves are the arrays (shared, not copied) and Rust scalars; the
//! comparison methods ([`Expr::greater`], ...), [`Expr::cast`] and a
//! callable's `expr` (any elementwise function, `#[elemental]` ones
//! included) add nodes. The callable layer evaluates it
//! (`dynd::func::Eval::eval`) in one pass over the result, each node
//! resolved as the call of its builtin (`add`, `subtract`, `multiply`,
//! `divide`, `remainder`, `power`, `negative`, the comparisons, and for
//! `& | ^ << >> !` the bitwise builtins, logical on `bool`) would be,
//! so promotion, broadcasting, ragged rows and NA follow exactly the rules
//! of calling them, and a shape or type error is an `Err` from `eval`
//! naming the node, never a panic in the operator.
//!
//! Operands may be `Array`, `&Array`, `Expr`, `&Expr` and the Rust numbers
//! (the [`ScalarOperand`]s: `f64`, `f32`, `i64`, `i32`, `u64`, `u32`, `i16`,
//! `u16`, `i8`, `u8`), on either side; a Rust string (`&str`, `String`)
//! is a `string` operand of the comparison methods (`names.equal("a")`)
//! and of `+` on the right (`&names + "!"` joins). A borrowed array is borrowed by the
//! expression (`Expr<'a>`), not cloned: building `&a * &b + &c` allocates
//! only the tree's nodes.
//!
//! ```
//! use dynd::nd::{expr::{BinaryOp, Expr}, Array};
//!
//! let (a, b) = (Array::from_vec(vec![1.0, 2.0]), Array::from_vec(vec![3.0, 4.0]));
//! let e = &a * &b + 1.0;
//! assert_eq!(e.to_string(), "add(multiply(a0, a1), 1)");
//! let Expr::Binary(BinaryOp::Add, operands) = &e else { unreachable!() };
//! assert!(matches!(operands.0, Expr::Binary(BinaryOp::Multiply, _)));
//! ```

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use dynd_types::Type;

use crate::array::Array;
use crate::into_array::IntoArray;
use crate::Error;

mod operators;
pub use operators::ScalarOperand;

/// A binary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BinaryOp {
    /// `+`: the builtin `add`.
    Add,
    /// `-`: the builtin `subtract`.
    Subtract,
    /// `*`: the builtin `multiply`.
    Multiply,
    /// `/`: the builtin `divide`.
    Divide,
    /// `%`: the builtin `remainder`.
    Remainder,
    /// `x ** y` ([`Expr::pow`]): the builtin `power`.
    Power,
    /// `==` ([`Expr::equal`]): the builtin `equal`.
    Equal,
    /// `!=` ([`Expr::not_equal`]): the builtin `not_equal`.
    NotEqual,
    /// `<` ([`Expr::less`]): the builtin `less`.
    Less,
    /// `<=` ([`Expr::less_equal`]): the builtin `less_equal`.
    LessEqual,
    /// `>` ([`Expr::greater`]): the builtin `greater`.
    Greater,
    /// `>=` ([`Expr::greater_equal`]): the builtin `greater_equal`.
    GreaterEqual,
    /// `&`: the builtin `bitwise_and` (logical on `bool`).
    BitAnd,
    /// `|`: the builtin `bitwise_or` (logical on `bool`).
    BitOr,
    /// `^`: the builtin `bitwise_xor` (logical on `bool`).
    BitXor,
    /// `<<`: the builtin `left_shift`.
    LeftShift,
    /// `>>`: the builtin `right_shift`.
    RightShift,
}

impl BinaryOp {
    /// Every binary operator.
    pub const ALL: [BinaryOp; 17] = [
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Remainder,
        BinaryOp::Power,
        BinaryOp::Equal,
        BinaryOp::NotEqual,
        BinaryOp::Less,
        BinaryOp::LessEqual,
        BinaryOp::Greater,
        BinaryOp::GreaterEqual,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::LeftShift,
        BinaryOp::RightShift,
    ];

    /// The infix symbol (`+`, `%`, `**`, `<=`, …), as the `dynd` tool's
    /// expressions write it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Subtract => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Remainder => "%",
            BinaryOp::Power => "**",
            BinaryOp::Equal => "==",
            BinaryOp::NotEqual => "!=",
            BinaryOp::Less => "<",
            BinaryOp::LessEqual => "<=",
            BinaryOp::Greater => ">",
            BinaryOp::GreaterEqual => ">=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::LeftShift => "<<",
            BinaryOp::RightShift => ">>",
        }
    }

    /// The name of the builtin callable that computes it.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Subtract => "subtract",
            BinaryOp::Multiply => "multiply",
            BinaryOp::Divide => "divide",
            BinaryOp::Remainder => "remainder",
            BinaryOp::Power => "power",
            BinaryOp::Equal => "equal",
            BinaryOp::NotEqual => "not_equal",
            BinaryOp::Less => "less",
            BinaryOp::LessEqual => "less_equal",
            BinaryOp::Greater => "greater",
            BinaryOp::GreaterEqual => "greater_equal",
            BinaryOp::BitAnd => "bitwise_and",
            BinaryOp::BitOr => "bitwise_or",
            BinaryOp::BitXor => "bitwise_xor",
            BinaryOp::LeftShift => "left_shift",
            BinaryOp::RightShift => "right_shift",
        }
    }
}

/// A unary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnaryOp {
    /// `-x`: the builtin `negative`.
    Negative,
    /// `!x` (`~x` in the `dynd` tool's expressions): the builtin `invert`
    /// (logical not on `bool`).
    Invert,
}

impl UnaryOp {
    /// The name of the builtin callable that computes it.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Negative => "negative",
            UnaryOp::Invert => "invert",
        }
    }
}

/// A function an expression calls by value: the callable layer's
/// `dynd::func::Callable` (its `expr` method makes the node). The trait
/// only names the function here; the layer that evaluates expressions
/// recognises its own functions through [`ExprFunction::as_any`].
pub trait ExprFunction: Send + Sync + 'static {
    /// The name shown in the expression's text and its errors.
    fn name(&self) -> &str;

    /// The function itself, for the evaluating layer to recognise.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A shared [`ExprFunction`]: the function of an [`Expr::Call`] node.
#[derive(Clone)]
pub struct Function(pub std::sync::Arc<dyn ExprFunction>);

impl Function {
    /// The function's name.
    pub fn name(&self) -> &str {
        self.0.name()
    }
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Function({})", self.name())
    }
}

/// An expression over arrays, built by the operators, the comparison
/// methods, [`Expr::cast`] and callables' `expr`, and evaluated by the
/// callable layer (see the [module docs](self)). Leaves borrow the arrays
/// they were given by reference.
///
/// Trees of any depth are safe to build, clone, print, drop and evaluate:
/// every walk here keeps its own stack on the heap (`e = e + 1.0` a
/// million times is a million-deep tree), and evaluation computes parts
/// of a deep tree first, [`MAX_EVAL_DEPTH`] levels at a time.
#[non_exhaustive]
pub enum Expr<'a> {
    /// An array.
    Leaf(Cow<'a, Array>),
    /// A Rust number or a literal (a 0-dimensional array): a *weak*
    /// scalar, as NumPy 2 treats a Python number (NEP 50). Its kind
    /// counts, not its width: next to an array of another type of its
    /// kind or a wider kind it takes that array's type (`float32` data
    /// times `2.0` is `float32`, `int8` data plus `1` is `int8`), where its
    /// value fits; next to only other scalars it is the array it holds.
    /// An explicit 0-d array ([`Expr::Leaf`]) is strong.
    Scalar(Cow<'a, Array>),
    /// An operator applied to one operand.
    Unary(UnaryOp, Box<Expr<'a>>),
    /// An operator applied to two operands (in one allocation).
    Binary(BinaryOp, Box<(Expr<'a>, Expr<'a>)>),
    /// A function applied to any number of operands.
    Call(Function, Vec<Expr<'a>>),
    /// The operand's elements converted to a data type (checked as
    /// `ArrayOps::cast` (in the kernels) with fractional errors).
    Cast(Type, Box<Expr<'a>>),
}

/// The most levels an evaluation walks at once: a deeper tree is
/// evaluated in parts of this many levels, bottom up (see
/// [`Expr::evaluate_deep_parts`]). Lowering a level for the fused loop
/// takes about 8 KiB of stack in a debug build: 64 levels fit in a 1 MiB
/// thread with room to spare (256 did not), and an expression written by
/// hand is rarely deeper.
pub const MAX_EVAL_DEPTH: usize = 64;

/// A 0-d array standing in for a node's operand while the node is taken
/// apart (by [`Drop`]).
fn placeholder<'a>() -> Expr<'a> {
    Expr::Leaf(Cow::Borrowed(placeholder_array()))
}

/// A leaf of `a`: a weak scalar where `scalar`, else an array.
fn leaf_of(a: Cow<'_, Array>, scalar: bool) -> Expr<'_> {
    if scalar {
        Expr::Scalar(a)
    } else {
        Expr::Leaf(a)
    }
}

fn placeholder_array() -> &'static Array {
    static EMPTY: OnceLock<Array> = OnceLock::new();
    EMPTY.get_or_init(|| Array::from_scalar(false))
}

impl<'a> Expr<'a> {
    /// A weak scalar holding `a` (a 0-d array of a builtin number type):
    /// a literal, as [`Expr::Scalar`] describes.
    pub fn scalar(a: Array) -> Expr<'static> {
        Expr::Scalar(Cow::Owned(a))
    }

    /// Whether this is a leaf: an array or a scalar.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        matches!(self, Expr::Leaf(_) | Expr::Scalar(_))
    }

    /// Whether a weak scalar ([`Expr::Scalar`]) is among the leaves.
    pub fn has_scalars(&self) -> bool {
        // Asked before every evaluation: a leaf, or a node over leaves
        // (`&a + &b`, one call), is answered without a walk.
        if !self.has_node_operand() {
            let scalar = |x: &Expr<'_>| matches!(x, Expr::Scalar(_));
            return scalar(self) || self.any_operand(scalar);
        }
        // Children pushed as they are found, without collecting each
        // node's operands first.
        let mut stack: smallvec::SmallVec<[&Expr<'a>; 16]> = smallvec::smallvec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Scalar(_) => return true,
                Expr::Leaf(_) => {}
                Expr::Unary(_, x) | Expr::Cast(_, x) => stack.push(x),
                Expr::Binary(_, xy) => stack.extend([&xy.0, &xy.1]),
                Expr::Call(_, args) => stack.extend(args),
            }
        }
        false
    }

    /// The tree with every weak scalar settled into an array leaf (strong
    /// from then on): `f`'s array where it gives one, else the scalar's
    /// own. Built without recursion.
    pub fn settle_scalars(&self, mut f: impl FnMut(&Array) -> Option<Array>) -> Expr<'a> {
        let settled = self.rebuild(
            |a, scalar| {
                let replaced = if scalar { f(a) } else { None };
                Expr::Leaf(replaced.map_or_else(|| a.clone(), Cow::Owned))
            },
            |node, height| Ok((node, height)),
        );
        settled.unwrap_or_else(|_| unreachable!("rebuilding without evaluating cannot fail"))
    }

    /// The leaves, left to right.
    pub fn leaves(&self) -> Vec<&Array> {
        let mut out = Vec::new();
        let mut stack: Vec<&Expr<'a>> = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Leaf(a) | Expr::Scalar(a) => out.push(&**a),
                // Pushed right to left, so popped left to right.
                _ => stack.extend(e.operands().into_iter().rev()),
            }
        }
        out
    }

    /// The node's operands, left to right (none for a leaf).
    pub fn operands(&self) -> smallvec::SmallVec<[&Expr<'a>; 2]> {
        match self {
            Expr::Leaf(_) | Expr::Scalar(_) => smallvec::SmallVec::new(),
            Expr::Unary(_, x) | Expr::Cast(_, x) => smallvec::smallvec![&**x],
            Expr::Binary(_, xy) => smallvec::smallvec![&xy.0, &xy.1],
            Expr::Call(_, args) => args.iter().collect(),
        }
    }

    /// The node with the same operator and new operands (as many as
    /// [`Expr::operands`] gave, in order); a leaf is itself.
    fn with_operands<'b>(
        &self,
        leaf: &mut impl FnMut(&Cow<'a, Array>, bool) -> Expr<'b>,
        operands: impl IntoIterator<Item = Expr<'b>>,
    ) -> Expr<'b> {
        let mut ops = operands.into_iter();
        let mut next = || ops.next().unwrap_or_else(placeholder);
        match self {
            Expr::Leaf(a) => leaf(a, false),
            Expr::Scalar(a) => leaf(a, true),
            Expr::Unary(op, _) => Expr::Unary(*op, Box::new(next())),
            Expr::Cast(ty, _) => Expr::Cast(ty.clone(), Box::new(next())),
            Expr::Binary(op, _) => {
                let x = next();
                Expr::Binary(*op, Box::new((x, next())))
            }
            Expr::Call(f, args) => Expr::Call(f.clone(), args.iter().map(|_| next()).collect()),
        }
    }

    /// Rebuilds the tree bottom up without recursion: leaves through
    /// `leaf`, then each node, with its height (a leaf's is 0), through
    /// `done`, which may replace it (by a leaf of its value, height 0).
    fn rebuild<'b>(
        &self,
        mut leaf: impl FnMut(&Cow<'a, Array>, bool) -> Expr<'b>,
        mut done: impl FnMut(Expr<'b>, usize) -> Result<(Expr<'b>, usize), Error>,
    ) -> Result<Expr<'b>, Error> {
        struct Frame<'e, 'a, 'b> {
            node: &'e Expr<'a>,
            operands: smallvec::SmallVec<[&'e Expr<'a>; 2]>,
            built: Vec<Expr<'b>>,
            height: usize,
        }
        fn frame<'e, 'a, 'b>(node: &'e Expr<'a>) -> Frame<'e, 'a, 'b> {
            Frame {
                node,
                operands: node.operands(),
                built: Vec::new(),
                height: 0,
            }
        }
        let mut stack = vec![frame(self)];
        loop {
            let top = stack
                .last_mut()
                .unwrap_or_else(|| unreachable!("the root is popped last"));
            if let Some(&next) = top.operands.get(top.built.len()) {
                stack.push(frame(next));
                continue;
            }
            let Some(f) = stack.pop() else {
                unreachable!("the loop has a frame")
            };
            let height = if f.operands.is_empty() {
                0
            } else {
                f.height + 1
            };
            let (node, height) = done(f.node.with_operands(&mut leaf, f.built), height)?;
            match stack.last_mut() {
                Some(parent) => {
                    parent.height = parent.height.max(height);
                    parent.built.push(node);
                }
                None => return Ok(node),
            }
        }
    }

    /// How many operator levels the tree has (0 for a leaf), found
    /// without recursion.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack: smallvec::SmallVec<[(&Expr<'a>, usize); 16]> =
            smallvec::smallvec![(self, 0)];
        while let Some((e, d)) = stack.pop() {
            deepest = deepest.max(d);
            stack.extend(e.operands().into_iter().map(|x| (x, d + 1)));
        }
        deepest
    }

    /// Whether the tree has more than `limit` operator levels: what
    /// `depth() > limit` says, found by a walk that recurses at most
    /// `limit.min(64)` levels and allocates nothing for a tree that
    /// shallow (the check every evaluation makes first).
    fn deeper_than(&self, limit: usize) -> bool {
        /// Whether `e` has more than `budget` levels (recursing at most
        /// `budget + 1` deep).
        fn deeper(e: &Expr<'_>, budget: usize) -> bool {
            let ops = e.operands();
            match budget.checked_sub(1) {
                _ if ops.is_empty() => false,
                None => true,
                Some(rest) => ops.into_iter().any(|x| deeper(x, rest)),
            }
        }
        // Recursion bounded by a small constant; a tree deeper than that
        // is measured by the walk that keeps its stack on the heap.
        const RECURSE: usize = 64;
        if limit <= RECURSE {
            deeper(self, limit)
        } else {
            deeper(self, RECURSE) && self.depth() > limit
        }
    }

    /// The tree with every part `limit` levels high replaced by a leaf of
    /// its value, computed by `eval` bottom up, so that no walk of the
    /// result (nor `eval` on a part) goes deeper than `limit`; the tree
    /// itself when it is not that deep. The evaluator does this before it
    /// walks a tree: the value is the same, since every node's value
    /// depends only on its operands' values.
    ///
    /// # Errors
    ///
    /// The first error `eval` returns.
    pub fn evaluate_deep_parts(
        &self,
        limit: usize,
        eval: &mut dyn FnMut(&Expr<'a>) -> Result<Array, Error>,
    ) -> Result<Cow<'_, Expr<'a>>, Error> {
        if !self.deeper_than(limit) {
            return Ok(Cow::Borrowed(self));
        }
        let limit = limit.max(1);
        self.rebuild(
            |a, scalar| leaf_of(a.clone(), scalar),
            |node, height| {
                if height >= limit {
                    Ok((Expr::Leaf(Cow::Owned(eval(&node)?)), 0))
                } else {
                    Ok((node, height))
                }
            },
        )
        .map(Cow::Owned)
    }

    /// The operands' elements converted to data type `ty`.
    pub fn cast(self, ty: &Type) -> Expr<'a> {
        Expr::Cast(ty.clone(), Box::new(self))
    }

    /// `self ** rhs`, elementwise.
    pub fn pow(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::Power, Box::new((self, rhs.into())))
    }

    /// `self == rhs`, elementwise (a `bool` result).
    pub fn equal(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::Equal, Box::new((self, rhs.into())))
    }

    /// `self != rhs`, elementwise.
    pub fn not_equal(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::NotEqual, Box::new((self, rhs.into())))
    }

    /// `self < rhs`, elementwise.
    pub fn less(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::Less, Box::new((self, rhs.into())))
    }

    /// `self <= rhs`, elementwise.
    pub fn less_equal(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::LessEqual, Box::new((self, rhs.into())))
    }

    /// `self > rhs`, elementwise.
    pub fn greater(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::Greater, Box::new((self, rhs.into())))
    }

    /// `self >= rhs`, elementwise.
    pub fn greater_equal(self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
        Expr::Binary(BinaryOp::GreaterEqual, Box::new((self, rhs.into())))
    }

    /// The expression's text as `Display` writes it, with its arrays
    /// numbered from `first` (the name of a node inside a larger
    /// expression, whose arrays before it take the numbers below).
    pub fn text_from(&self, first: usize) -> String {
        struct Text<'e, 'a>(&'e Expr<'a>, usize);
        impl fmt::Display for Text<'_, '_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write(f, &mut self.1.clone())
            }
        }
        Text(self, first).to_string()
    }

    /// How many of the leaves are arrays of one or more dimensions (the
    /// ones the text names `a0`, `a1`, ...).
    pub fn named_leaves(&self) -> usize {
        self.leaves().iter().filter(|a| a.ndim() > 0).count()
    }

    /// The expression owning its leaves (borrowed ones are cloned, which
    /// shares their memory), to keep beyond the arrays' borrows.
    pub fn into_owned(self) -> Expr<'static> {
        let owned = self.rebuild(
            |a, scalar| leaf_of(Cow::Owned((**a).clone()), scalar),
            |node, height| Ok((node, height)),
        );
        owned.unwrap_or_else(|_| unreachable!("rebuilding without evaluating cannot fail"))
    }

    /// Writes the text, without recursion: a stack of what is still to
    /// write.
    fn write(&self, f: &mut fmt::Formatter<'_>, next: &mut usize) -> fmt::Result {
        enum Todo<'e, 'a> {
            Node(&'e Expr<'a>),
            Text(&'static str),
            Type(&'e Type),
        }
        let mut stack = vec![Todo::Node(self)];
        while let Some(todo) = stack.pop() {
            let e = match todo {
                Todo::Text(t) => {
                    f.write_str(t)?;
                    continue;
                }
                Todo::Type(ty) => {
                    write!(f, ", {ty})")?;
                    continue;
                }
                Todo::Node(e) => e,
            };
            let name = match e {
                // Scalars show their value, arrays a name by position.
                Expr::Leaf(a) | Expr::Scalar(a) if a.ndim() == 0 => {
                    write!(f, "{a}")?;
                    continue;
                }
                Expr::Leaf(_) | Expr::Scalar(_) => {
                    write!(f, "a{next}")?;
                    *next += 1;
                    continue;
                }
                Expr::Unary(op, _) => op.name(),
                Expr::Binary(op, _) => op.name(),
                Expr::Call(func, _) => func.name(),
                Expr::Cast(ty, _) => {
                    stack.push(Todo::Type(ty));
                    "cast"
                }
            };
            write!(f, "{name}(")?;
            if !matches!(e, Expr::Cast(..)) {
                stack.push(Todo::Text(")"));
            }
            let operands = e.operands();
            for (i, x) in operands.iter().enumerate().rev() {
                stack.push(Todo::Node(x));
                if i > 0 {
                    stack.push(Todo::Text(", "));
                }
            }
        }
        Ok(())
    }

    /// Moves the operands that are themselves nodes out to `to`, leaving
    /// leaves in their place, so that dropping this node goes one level
    /// deep.
    fn take_operands(&mut self, mut to: impl FnMut(Expr<'a>)) {
        let mut take = |x: &mut Expr<'a>| {
            if !x.is_leaf() {
                to(std::mem::replace(x, placeholder()));
            }
        };
        match self {
            Expr::Leaf(_) | Expr::Scalar(_) => {}
            Expr::Unary(_, x) | Expr::Cast(_, x) => take(x),
            Expr::Binary(_, xy) => {
                take(&mut xy.0);
                take(&mut xy.1);
            }
            Expr::Call(_, args) => args.iter_mut().for_each(take),
        }
    }
}

/// How many levels of a tree [`Drop`] takes apart by recursion before it
/// goes on with a stack of its own.
const DROP_RECURSION: usize = 64;

thread_local! {
    /// How many nested [`Drop`] calls of this thread are taking a node
    /// apart by recursion.
    static DROP_LEVEL: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Drop for Expr<'_> {
    /// Drops the tree without unbounded recursion (a deep tree would
    /// overflow the stack otherwise): a node over leaves is left to its
    /// fields' own drops (one level), and so is a node whose operand
    /// nodes are over leaves (two levels); any other drops its operands
    /// here, by recursion for the first 64 levels (`DROP_RECURSION`),
    /// below that on an inline stack, so dropping an expression a user
    /// writes allocates nothing. The test for node operands is inlined
    /// into the drop of each node and leaf; only a node over nodes makes a
    /// call.
    #[inline]
    fn drop(&mut self) {
        if self.has_node_operand() {
            self.drop_node_operands();
        }
    }
}

impl Expr<'_> {
    /// [`Drop::drop`] of a node with operands that are nodes.
    #[inline(never)]
    fn drop_node_operands(&mut self) {
        if !self.any_operand(|x| x.has_node_operand()) {
            // Two levels: the fields' drops recurse no deeper.
            return;
        }
        let level = DROP_LEVEL.with(|l| l.get());
        if level >= DROP_RECURSION {
            self.drop_operands_on_stack();
            return;
        }
        /// Restores the level when the operands are dropped (or a drop
        /// unwinds).
        struct Restore(usize);
        impl Drop for Restore {
            fn drop(&mut self) {
                DROP_LEVEL.with(|l| l.set(self.0));
            }
        }
        let _restore = Restore(level);
        DROP_LEVEL.with(|l| l.set(level + 1));
        self.take_operands(drop);
    }

    /// Whether an operand is a node, not a leaf: tested in the drop of
    /// every node and leaf, so leaves and binary nodes (most of a tree)
    /// are told apart by two tests before any other variant is looked at.
    #[inline(always)]
    fn has_node_operand(&self) -> bool {
        let node = |x: &Expr<'_>| !x.is_leaf();
        if self.is_leaf() {
            return false;
        }
        if let Expr::Binary(_, xy) = self {
            return node(&xy.0) || node(&xy.1);
        }
        self.any_operand(node)
    }

    /// Whether `f` holds for one of the operands (none for a leaf).
    #[inline(always)]
    fn any_operand(&self, f: impl Fn(&Expr<'_>) -> bool) -> bool {
        match self {
            Expr::Leaf(_) | Expr::Scalar(_) => false,
            Expr::Unary(_, x) | Expr::Cast(_, x) => f(x),
            Expr::Binary(_, xy) => f(&xy.0) || f(&xy.1),
            Expr::Call(_, args) => args.iter().any(f),
        }
    }

    /// Drops the operands below this node without recursion: each node
    /// taken apart on an inline stack, its operands left as leaves (so
    /// its own drop is one level).
    #[inline(never)]
    fn drop_operands_on_stack(&mut self) {
        let mut stack: smallvec::SmallVec<[Expr<'_>; 8]> = smallvec::SmallVec::new();
        self.take_operands(|e| stack.push(e));
        while let Some(mut e) = stack.pop() {
            e.take_operands(|x| stack.push(x));
        }
    }
}

impl Clone for Expr<'_> {
    /// A copy of the tree (leaves share their arrays), made without
    /// recursion.
    fn clone(&self) -> Self {
        let copy = self.rebuild(
            |a, scalar| leaf_of(a.clone(), scalar),
            |node, height| Ok((node, height)),
        );
        copy.unwrap_or_else(|_| unreachable!("rebuilding without evaluating cannot fail"))
    }
}

impl fmt::Debug for Expr<'_> {
    /// `Expr(` the text `Display` writes `)`, with the leaves' types.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expr({self}; leaves: ")?;
        let leaves = self.leaves();
        for (i, a) in leaves.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", a.ty())?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for Expr<'_> {
    /// The calls the expression makes, arrays named `a0`, `a1`, ... in
    /// order and scalars by value: `add(multiply(a0, a1), 1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, &mut 0)
    }
}

/// How the callable layer evaluates an expression (see
/// [`set_evaluator`]).
pub type Evaluator = fn(&Expr<'_>) -> Result<Array, Error>;

/// The evaluator, set once by the callable layer.
static EVALUATOR: OnceLock<Evaluator> = OnceLock::new();

/// Installs the function that evaluates expressions passed where an array
/// is expected ([`IntoArray`] for [`Expr`]). The callable layer installs
/// its fused evaluation when it makes its first callable; later calls are
/// ignored.
#[doc(hidden)]
pub fn set_evaluator(f: Evaluator) {
    let _ = EVALUATOR.get_or_init(|| f);
}

impl IntoArray for &Expr<'_> {
    /// The expression's value, evaluated once (fused); a leaf is its array.
    fn into_array(self) -> Result<Array, Error> {
        match (self, EVALUATOR.get()) {
            (Expr::Leaf(a) | Expr::Scalar(a), _) => Ok((**a).clone()),
            (e, Some(f)) => f(e),
            (e, None) => Err(Error::NoEvaluator {
                expr: e.to_string(),
            }),
        }
    }
}

impl IntoArray for Expr<'_> {
    /// As for `&Expr`.
    fn into_array(self) -> Result<Array, Error> {
        (&self).into_array()
    }

    fn into_arg<'b>(mut self) -> Result<Cow<'b, Array>, Error>
    where
        Self: 'b,
    {
        match &mut self {
            Expr::Leaf(a) | Expr::Scalar(a) => {
                Ok(std::mem::replace(a, Cow::Borrowed(placeholder_array())))
            }
            _ => self.into_array().map(Cow::Owned),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expression_argument_needs_the_callable_layer() {
        // This crate has no callables, so nothing installed an evaluator:
        // a leaf is its array, anything else says what to do.
        let a = Array::from_vec(vec![1.0, 2.0]);
        let leaf = Expr::from(&a).into_arg().unwrap();
        assert!(matches!(leaf, Cow::Borrowed(_)));
        let e = (&a + 1.0).into_array().unwrap_err();
        assert!(matches!(e, Error::NoEvaluator { .. }), "{e}");
        assert!(e.to_string().contains("'add(a0, 1)'"), "{e}");
        assert!(e.to_string().contains("Eval::eval"), "{e}");
    }

    #[test]
    fn weak_scalars_are_found_at_any_depth() {
        let a = Array::from_vec(vec![1.0f64, 2.0]);
        let x = || Expr::from(&a);
        let s = || Expr::from(2.0);
        let found = [
            (x(), false),
            (s(), true),
            (x() + x(), false),
            (x() + s(), true),
            (s() * x(), true),
            (-x(), false),
            (-s(), true),
            (x() * x() + x(), false),
            (x() * (x() - s()), true),
            ((s() + x()) * x() - x(), true),
        ];
        for (k, (e, want)) in found.iter().enumerate() {
            assert_eq!(e.has_scalars(), *want, "case {k}: {e}");
        }
    }

    #[test]
    fn every_leaf_is_dropped_whatever_the_tree_shape() {
        // Each leaf owns a handle on `a`'s memory: once the tree is gone,
        // `a` is its only owner again. Shapes of every height the drop
        // tells apart (a leaf; a node over leaves; two levels, left to the
        // fields' drops; three and more, taken apart by the drop itself;
        // deeper than its recursion, on its own stack), with unary, cast
        // and binary nodes on either side.
        fn leaf(a: &Array) -> Expr<'static> {
            Expr::from(a.clone())
        }
        fn cast(e: Expr<'static>) -> Expr<'static> {
            Expr::Cast("float64".parse().unwrap(), Box::new(e))
        }
        fn chain(a: &Array, n: usize) -> Expr<'static> {
            (0..n).fold(leaf(a), |e, _| -(e + leaf(a)))
        }
        type Shape = fn(&Array) -> Expr<'static>;
        let shapes: [Shape; 9] = [
            |a| leaf(a),
            |a| leaf(a) * leaf(a),
            |a| leaf(a) * leaf(a) + leaf(a) * leaf(a),
            |a| leaf(a) * leaf(a) + leaf(a) * leaf(a) - leaf(a),
            |a| leaf(a) - (leaf(a) * -leaf(a) + cast(leaf(a) * leaf(a))),
            |a| cast(-(cast(leaf(a)) * leaf(a))),
            |a| chain(a, 3),
            |a| chain(a, DROP_RECURSION + 10),
            |a| chain(a, 4 * DROP_RECURSION) * chain(a, 2),
        ];
        let mut a = Array::from_vec(vec![1.0f64, 2.0]);
        for (k, shape) in shapes.iter().enumerate() {
            let e = shape(&a);
            assert!(a.owned_data_ptr().is_none(), "shape {k} holds `a`");
            drop(e);
            assert!(a.owned_data_ptr().is_some(), "shape {k} left a leaf behind");
        }
    }
}
