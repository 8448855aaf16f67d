//! `#[elemental]`: parse the attribute and the fn, check them (collecting
//! every problem with its span), and expand to the fn unchanged plus a
//! module of the same name holding the callable. The stages are modules:
//! [`parse`] → [`analyse`] → [`signature`] → [`mod@expand`], each reading
//! only the ones before it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, Ident, ItemFn, LitStr, Pat, ReturnType, Token};

use dynd_types::{Dim, Scalar, Type, TypeKind};

mod parse;
use parse::*;
mod analyse;
use analyse::*;
mod signature;
use signature::*;
mod records;
use records::*;
mod expand;
pub(crate) use expand::expand;
