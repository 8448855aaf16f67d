//! The builtin reductions as values ([`Reducer`]): what evaluation
//! reads about a reduction, carried by its callable rather than read
//! from its name.

/// The builtin reductions, and the properties evaluation reads from them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reducer {
    Sum,
    Prod,
    Min,
    Max,
    All,
    Any,
    Mean,
    Var,
    Std,
}

impl Reducer {
    /// The builtin's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Reducer::Sum => "sum",
            Reducer::Prod => "prod",
            Reducer::Min => "min",
            Reducer::Max => "max",
            Reducer::All => "all",
            Reducer::Any => "any",
            Reducer::Mean => "mean",
            Reducer::Var => "var",
            Reducer::Std => "std",
        }
    }

    /// What an empty group (a row of a `var` axis with no element) gives
    /// without `initial`: NA (`?R`, Awkward's `mask_identity`) for the
    /// reductions without an identity, else the identity.
    pub(crate) fn empty_group(self) -> EmptyGroup {
        match self {
            Reducer::Min | Reducer::Max | Reducer::Mean | Reducer::Var | Reducer::Std => {
                EmptyGroup::Na
            }
            Reducer::Sum | Reducer::Prod | Reducer::All | Reducer::Any => EmptyGroup::Identity,
        }
    }

    /// Whether folding a value in twice changes nothing (`min`, `max`,
    /// `all`, `any`): `initial` may then fold into every part.
    pub(crate) fn idempotent(self) -> bool {
        matches!(
            self,
            Reducer::Min | Reducer::Max | Reducer::All | Reducer::Any
        )
    }

    /// Whether it is a second moment (`var`, `std`).
    pub(crate) fn is_moment(self) -> bool {
        matches!(self, Reducer::Var | Reducer::Std)
    }
}

/// What a reduction gives for an empty group.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum EmptyGroup {
    /// Its identity (`sum` 0, `prod` 1, `all` true, `any` false).
    Identity,
    /// NA.
    Na,
}
