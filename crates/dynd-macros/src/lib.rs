//! Procedural macros for dynd-rs. Use them through the `dynd` facade
//! (`dynd::datashape!`); generated code names only `::dynd::__private` paths.
//! (This crate cannot depend on the facade, so the example below runs in the
//! facade's docs and in the root package's trybuild tests.)
//!
//! ```ignore
//! let t = dynd::datashape!("var * ?int32");
//! assert_eq!(t.to_string(), "var * ?int32");
//! ```
//!
//! ## Layering
//!
//! | floor | modules |
//! |---|---|
//! | 2 | `elemental` |
//! | 1 | `record` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// Doc examples are code users copy: no warnings in them either.
#![doc(test(attr(deny(warnings))))]

use proc_macro::TokenStream;
use quote::quote_spanned;
use syn::LitStr;

/// A datashape literal checked at compile time; see `dynd::datashape!`.
///
/// Expands to an expression of type `::dynd::ndt::Type`, built once (in a
/// `LazyLock`) from the canonical text of the parsed type and cloned on each
/// evaluation. A datashape that does not parse is a compile error on the
/// literal, with the parser's message and caret.
#[proc_macro]
pub fn datashape(input: TokenStream) -> TokenStream {
    let lit = match syn::parse::<LitStr>(input) {
        Ok(lit) => lit,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                "datashape! takes one string literal, e.g. datashape!(\"3 * var * int32\")",
            )
            .to_compile_error()
            .into()
        }
    };
    let span = lit.span();
    match dynd_types::Type::parse(&lit.value()) {
        Ok(t) => {
            let canonical = t.to_string();
            quote_spanned! {span=>
                {
                    static TYPE: ::dynd::__private::LazyLock<::dynd::__private::Type> =
                        ::dynd::__private::LazyLock::new(|| ::dynd::__private::parse_checked(#canonical));
                    ::core::clone::Clone::clone(&*TYPE)
                }
            }
            .into()
        }
        Err(e) => syn::Error::new(span, format!("invalid datashape: {e}"))
            .to_compile_error()
            .into(),
    }
}

/// A callable signature literal checked at compile time, for the
/// builtins inside the workspace: expands to the same `&'static str`, or
/// to a compile error on the literal if it does not parse or is not a
/// callable type (`(A, B, kw: C) -> R`). The registry parses it again at
/// run time, where it cannot fail.
///
/// ```
/// const S: &str = dynd_macros::checked_signature!("(N * T, n: ?int64) -> T");
/// assert_eq!(S, "(N * T, n: ?int64) -> T");
/// ```
///
/// A typo is a compile error, not a panic when the registry is built:
///
/// ```compile_fail
/// const S: &str = dynd_macros::checked_signature!("(N * T, n: ?int64) -> ");
/// ```
///
/// ```compile_fail
/// const S: &str = dynd_macros::checked_signature!("3 * int32");
/// ```
#[doc(hidden)]
#[proc_macro]
pub fn checked_signature(input: TokenStream) -> TokenStream {
    let lit = match syn::parse::<LitStr>(input) {
        Ok(lit) => lit,
        Err(e) => {
            return syn::Error::new(e.span(), "checked_signature! takes one string literal")
                .to_compile_error()
                .into()
        }
    };
    match dynd_types::Type::parse(&lit.value()) {
        Ok(t) if matches!(t.kind(), dynd_types::TypeKind::Callable(_)) => {
            quote_spanned! {lit.span()=> #lit }.into()
        }
        Ok(t) => syn::Error::new(
            lit.span(),
            format!("{t} is not a callable signature (`(A, B, kw: C) -> R`)"),
        )
        .to_compile_error()
        .into(),
        Err(e) => syn::Error::new(lit.span(), format!("invalid signature: {e}"))
            .to_compile_error()
            .into(),
    }
}

mod elemental;
mod record;

/// Makes a struct a dynd record; see `dynd::nd::structs`.
#[proc_macro_derive(Record)]
pub fn derive_record(item: TokenStream) -> TokenStream {
    record::expand(item.into()).into()
}

/// Makes a scalar fn a broadcasting callable; see `dynd::elemental`.
#[proc_macro_attribute]
pub fn elemental(attr: TokenStream, item: TokenStream) -> TokenStream {
    elemental::expand(attr.into(), item.into()).into()
}
