//! Stage 1, parse: the attribute's options, and the error list every stage
//! adds to (each problem with its span, reported together).

use super::*;

/// Every problem found, each with its span, reported together.
#[derive(Default)]
pub(super) struct Errors(pub(super) Option<syn::Error>);

impl Errors {
    /// A problem spanning `node`'s tokens (first to last).
    pub(super) fn push<T: ToTokens + ?Sized>(&mut self, node: &T, message: impl std::fmt::Display) {
        self.add(syn::Error::new_spanned(node, message));
    }

    /// A problem syn found.
    pub(super) fn add(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
}

/// The attribute's options.
#[derive(Default)]
pub(super) struct Options {
    /// Generic parameters and the types each is expanded over.
    pub(super) generics: Vec<(Ident, Vec<syn::Type>)>,
    /// An explicit signature, parsed.
    pub(super) signature: Option<(LitStr, Type)>,
    /// SlangPy's strict broadcasting.
    pub(super) strict: bool,
    /// `reduce` (with an identity, if given).
    pub(super) reduce: Option<Option<syn::Lit>>,
    /// The path of the facade crate (`::dynd` by default).
    pub(super) krate: Option<syn::Path>,
}

pub(super) const SUPPORTED: &str = "bool, i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64, F16, Complex<f32>, Complex<f64>, and text (`&str` or `Option<&str>` parameters, `String` or `&str` results, or an `Option` or `Result` of them)";

/// The most parameters (keywords included) a fn may take: the kernel
/// crate's `ElementFn` and `CoreFn` are implemented up to 16 (its
/// `MAX_LEAF_ARGS`).
pub(super) const MAX_ARGS: usize = 16;

pub(super) fn parse_options(attr: TokenStream, errors: &mut Errors) -> Options {
    let mut opts = Options::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(Ident::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "signature" => {
                let lit: LitStr = meta.value()?.parse()?;
                match Type::parse(&lit.value()) {
                    Ok(t) if matches!(t.kind(), TypeKind::Callable(_)) => {
                        opts.signature = Some((lit, t));
                    }
                    Ok(t) => errors.push(&lit,
                        format!("the signature `{t}` is not a function type; write e.g. \"(N * float64, N * float64) -> float64\""),
                    ),
                    Err(e) => errors.push(&lit, format!("the signature does not parse: {e}")),
                }
                Ok(())
            }
            "strict" => {
                opts.strict = true;
                Ok(())
            }
            "crate" => {
                let lit: LitStr = meta.value()?.parse()?;
                opts.krate = Some(lit.parse()?);
                Ok(())
            }
            "reduce" => {
                let mut identity = None;
                if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("identity") {
                            let v: syn::Expr = inner.value()?.parse()?;
                            identity = Some(
                                literal(&v)
                                    .filter(|l| matches!(l, syn::Lit::Int(_) | syn::Lit::Float(_) | syn::Lit::Bool(_)))
                                    .ok_or_else(|| syn::Error::new_spanned(&v, "the identity is a number or `true`/`false` (e.g. `identity = 0`)"))?,
                            );
                            Ok(())
                        } else {
                            Err(inner.error("`reduce` takes `identity = LITERAL` (or nothing, for an operation without identity)"))
                        }
                    })?;
                }
                opts.reduce = Some(identity);
                Ok(())
            }
            _ if meta.path.get_ident().is_some_and(|i| i.to_string().starts_with(|c: char| c.is_ascii_uppercase())) => {
                let ident = meta.path.get_ident().cloned().unwrap_or_else(|| format_ident!("T"));
                let content: ParseStream<'_> = meta.value()?;
                let list;
                syn::bracketed!(list in content);
                let types = Punctuated::<syn::Type, Token![,]>::parse_terminated(&list)?;
                if types.is_empty() {
                    errors.push(
                        &ident,
                        format!("`{ident} = []` lists no types; list the types to expand over (`{ident} = [f32, f64]`)"),
                    );
                }
                opts.generics.push((ident, types.into_iter().collect()));
                Ok(())
            }
            _ => Err(meta.error(
                "unknown #[elemental] option; the options are `T = [types...]` for a generic parameter, `signature = \"...\"`, `strict`, `reduce` / `reduce(identity = ...)` and `crate = \"path\"`",
            )),
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        errors.add(e);
    }
    opts
}

/// A literal, allowing a leading minus (`-1`).
pub(super) fn literal(e: &syn::Expr) -> Option<syn::Lit> {
    match e {
        syn::Expr::Lit(l) => Some(l.lit.clone()),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match literal(&u.expr)? {
            syn::Lit::Int(i) => Some(syn::Lit::Int(syn::LitInt::new(
                &format!("-{}", i.base10_digits()),
                i.span(),
            ))),
            syn::Lit::Float(f) => Some(syn::Lit::Float(syn::LitFloat::new(
                &format!("-{}", f.base10_digits()),
                f.span(),
            ))),
            _ => None,
        },
        _ => None,
    }
}

/// A type as the user wrote it, without the token stream's spaces.
pub(super) fn pretty(ty: &impl ToTokens) -> String {
    ty.to_token_stream()
        .to_string()
        .replace("& ", "&")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" ;", ";")
        .replace("[ ", "[")
        .replace(" ]", "]")
}
