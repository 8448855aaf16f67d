//! `#[elemental]` over records: a fn whose parameters or result are
//! `#[derive(Record)]` structs (`fn dist(p: Point, q: Point) -> f64`).
//!
//! Its arguments broadcast together (as `zip` lines them up), each is
//! read one column of values at a time through its `Field` type (a plain
//! interleaved record array as `&[Point]`, records held as columns field
//! by field, never interleaved first), the fn runs on every element in
//! C order, and the results are gathered under the broadcast dimensions:
//! a record result as records held as columns.

use super::*;
use crate::record::shape_pieces;

/// Whether `ty` names a user struct: a path of one capitalised name
/// without arguments that is not one of the scalar, time or text types,
/// or an `Option` of one.
pub(super) fn is_record_type(ty: &syn::Type, generics: &[String]) -> bool {
    if let Some(inner) = option_inner(ty) {
        return is_record_type(inner, generics);
    }
    let syn::Type::Path(p) = ty else { return false };
    if p.qself.is_some() {
        return false;
    }
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    matches!(last.arguments, syn::PathArguments::None)
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && !matches!(name.as_str(), "F16" | "String" | "Self")
        && scalar_of(ty).is_none()
        && !generics.contains(&name)
}

/// Whether the fn takes or returns a record.
pub(super) fn over_records(func: &ItemFn) -> bool {
    // A generic parameter (`T`) is not a record.
    let generics: Vec<String> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let params = func.sig.inputs.iter().any(|a| match a {
        FnArg::Typed(pt) => is_record_type(&pt.ty, &generics),
        FnArg::Receiver(_) => false,
    });
    let ret = match &func.sig.output {
        ReturnType::Type(_, t) => is_record_type(ok_type(t).unwrap_or(t), &generics),
        ReturnType::Default => false,
    };
    params || ret
}

/// The expansion of an `#[elemental]` fn over records.
pub(super) fn expand_records(func: &ItemFn, opts: &Options, user_fn: &ItemFn) -> TokenStream {
    let mut errors = Errors::default();
    if !opts.generics.is_empty() || !func.sig.generics.params.is_empty() {
        errors.push(
            &func.sig.generics,
            "an `#[elemental]` fn over records takes no generic parameters",
        );
    }
    if opts.reduce.is_some() || opts.signature.is_some() {
        errors.push(
            &func.sig.ident,
            "an `#[elemental]` fn over records takes no `reduce` or `signature` option",
        );
    }
    if let Some(t) = &func.sig.asyncness {
        errors.push(
            &t,
            "`#[elemental]` fns run inside array loops and cannot be `async`",
        );
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    for arg in &func.sig.inputs {
        match arg {
            FnArg::Receiver(r) => errors.push(&r, "`#[elemental]` fns take no `self`"),
            FnArg::Typed(pt) => {
                if let Some(a) = pt.attrs.iter().find(|a| a.path().is_ident("kw")) {
                    errors.push(
                        a,
                        "an `#[elemental]` fn over records takes no `#[kw]` parameters",
                    );
                }
                if matches!(&*pt.ty, syn::Type::Reference(_)) {
                    errors.push(
                        &pt.ty,
                        "an `#[elemental]` fn over records takes its parameters by value (text as `String`)",
                    );
                }
                match &*pt.pat {
                    Pat::Ident(i) => names.push(i.ident.clone()),
                    other => errors.push(other, "`#[elemental]` parameters are plain names"),
                }
                types.push((*pt.ty).clone());
            }
        }
    }
    let ret = match &func.sig.output {
        ReturnType::Type(_, t) => {
            if ok_type(t).is_some() {
                errors.push(
                    t,
                    "an `#[elemental]` fn over records returns a value, not a `Result`",
                );
            }
            (**t).clone()
        }
        ReturnType::Default => {
            errors.push(
                &func.sig.ident,
                "an `#[elemental]` fn over records returns a value",
            );
            syn::parse_quote!(())
        }
    };
    if let Some(e) = errors.0 {
        let err = e.to_compile_error();
        return quote!(#err #user_fn);
    }
    let krate = opts
        .krate
        .clone()
        .map_or_else(|| quote!(::dynd), |p| quote!(#p));
    let name = &func.sig.ident;
    let name_str = name.to_string();
    let vis = &func.vis;
    let run = format_ident!("__{}_run", name);
    // The signature's datashape, built at compile time from the pieces.
    let mut pieces = vec![quote!(#krate::nd::structs::Piece::Str("("))];
    for (k, t) in types.iter().enumerate() {
        if k > 0 {
            pieces.push(quote!(#krate::nd::structs::Piece::Str(", ")));
        }
        shape_pieces(t, &krate, &mut pieces);
    }
    pieces.push(quote!(#krate::nd::structs::Piece::Str(") -> ")));
    shape_pieces(&ret, &krate, &mut pieces);
    let field = |t: &syn::Type| quote_spanned!(t.span()=> <#t as #krate::nd::Field>);
    let f: Vec<TokenStream> = types.iter().map(field).collect();
    let r = field(&ret);
    let idx: Vec<syn::Index> = (0..types.len()).map(syn::Index::from).collect();
    let stores: Vec<Ident> = (0..types.len())
        .map(|i| format_ident!("__s{}", i))
        .collect();
    let views: Vec<Ident> = (0..types.len())
        .map(|i| format_ident!("__v{}", i))
        .collect();
    let plains: Vec<Ident> = (0..types.len())
        .map(|i| format_ident!("__p{}", i))
        .collect();
    let arity = types.len();
    let checks = types.iter().chain([&ret]).map(|t| {
        quote_spanned! {t.span()=>
            const _: fn() = || {
                fn field<T: #krate::nd::Field>() {}
                field::<#t>();
            };
        }
    });
    let docs = format!(
        "The callable of the `#[elemental]` fn [`{name_str}`](fn@{name_str}) over records."
    );
    quote! {
        #user_fn
        #(#checks)*

        #[doc = #docs]
        #[allow(non_camel_case_types)]
        #vis enum #name {}

        #[allow(dead_code)]
        impl #name {
            /// The datashape signature.
            pub const SIGNATURE: &'static str = {
                const PIECES: &[#krate::nd::structs::Piece] = &[#(#pieces),*];
                const LEN: usize = #krate::nd::structs::pieces_len(PIECES);
                const BYTES: [u8; LEN] = #krate::nd::structs::pieces_bytes::<LEN>(PIECES);
                #krate::nd::structs::utf8(&BYTES)
            };

            /// The callable (built once).
            pub fn callable() -> #krate::func::Callable {
                static CALLABLE: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| {
                        #krate::__private::record_callable(#name_str, #name::SIGNATURE, #arity, #run)
                    });
                ::core::clone::Clone::clone(&*CALLABLE)
            }

            /// Calls the fn over arrays, broadcast together.
            pub fn call(#(#names: impl #krate::nd::IntoArray),*) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                #(let #names = #krate::nd::IntoArray::into_array(#names)?;)*
                #name::callable().call(&[#(&#names),*])
            }
        }

        #[doc(hidden)]
        #[allow(non_snake_case)]
        fn #run(args: &[&#krate::nd::Array]) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
            let __b = #krate::__private::record_args(args, &[#(#f::dtype()),*])?;
            #(
                let #stores = #f::store(&__b.flat[#idx])?;
                let #views = #f::view(&#stores)?;
            )*
            let __n = __b.count;
            // Every argument one slice (numbers, plain interleaved
            // records): a loop over slices, as a hand-written one.
            let __out = match (#(#f::plain(&#views),)*) {
                (#(::core::option::Option::Some(#plains),)*) if true #(&& #plains.len() >= __n)* => {
                    #(let #plains = &#plains[..__n];)*
                    #r::column_with(__n, |__i| #name(#(#f::duplicate(&#plains[__i])),*))?
                }
                _ => #r::column_with(__n, |__i| #name(#(#f::get(&#views, __i)),*))?,
            };
            #krate::__private::record_result(__out, &__b)
        }
    }
}
