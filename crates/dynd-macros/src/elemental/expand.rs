//! Stage 3, expand: the fn unchanged, and a module of the same name holding
//! the callable built from one overload per binding.

use super::*;

/// The fn as written, without the `#[kw]` attributes on its parameters.
pub(super) fn cleaned(func: &ItemFn) -> ItemFn {
    let mut f = func.clone();
    for arg in &mut f.sig.inputs {
        if let FnArg::Typed(pt) = arg {
            pt.attrs.retain(|a| !a.path().is_ident("kw"));
        }
    }
    f
}

/// The expansion of `#[elemental(attr)] item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(e.span(), "`#[elemental]` goes on a fn");
            let err = e.to_compile_error();
            return quote!(#err #item);
        }
    };
    let mut errors = Errors::default();
    let opts = parse_options(attr, &mut errors);
    if errors.0.is_none() && over_records(&func) {
        return expand_records(&func, &opts, &cleaned(&func));
    }
    let model = analyze(&func, &opts.generics, &mut errors);
    let user_fn = cleaned(&func);
    let Some(model) = model.filter(|_| errors.0.is_none()) else {
        let err = errors.0.map(|e| e.to_compile_error()).unwrap_or_default();
        return quote!(#err #user_fn);
    };
    let binds = bindings(&opts.generics);
    let mut signatures = Vec::new();
    for bind in &binds {
        match &opts.signature {
            Some((lit, sig)) => {
                if let Err(why) = check_signature(sig, &model, bind) {
                    let types: Vec<String> = bind
                        .iter()
                        .map(|(g, t)| format!("{g} = {}", quote!(#t)))
                        .collect();
                    let with = if types.is_empty() {
                        String::new()
                    } else {
                        format!(" (with {})", types.join(", "))
                    };
                    errors.push(
                        &lit,
                        format!("the signature `{sig}` does not match the fn{with}: {why}"),
                    );
                }
                signatures.push(sig.to_string());
            }
            None => match signature_of(&model, bind) {
                Some(s) => signatures.push(s),
                None => errors.push(&func.sig.ident, "an element type is not a supported scalar"),
            },
        }
    }
    // A generic list naming one type twice gives two identical overloads.
    for (i, a) in signatures.iter().enumerate() {
        if signatures[..i].contains(a) && opts.signature.is_none() {
            errors.push(
                &func.sig.ident,
                format!("two expansions have the signature `{a}`; list each type once"),
            );
        }
    }
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
    let core = model
        .params
        .iter()
        .any(|p| !matches!(p.shape, Shape::Scalar))
        || matches!(model.ret, Some((_, Shape::Array(_))));
    let overloads: Vec<TokenStream> = binds
        .iter()
        .zip(&signatures)
        .map(|(bind, sig)| overload(&model, bind, sig, name, core, &krate))
        .collect();
    // The leaf takes every parameter; keywords are the trailing ones.
    let keywords: Vec<TokenStream> = model
        .params
        .iter()
        .filter_map(|p| {
            let default = p.keyword.as_ref()?;
            let kw = p.name.to_string();
            let scalar = scalar_tokens(scalar_of(&substitute(&p.elem, &binds[0]))?, &krate);
            Some(match default {
                None if p.option => quote!(#krate::func::Keyword::optional(#kw, #scalar, #krate::__private::na(#scalar))),
                None => quote!(#krate::func::Keyword::required(#kw, #scalar)),
                Some(lit) => {
                    let elem = substitute(&p.elem, &binds[0]);
                    quote!(#krate::func::Keyword::optional(#kw, #scalar, #krate::nd::Array::from_scalar::<#elem>(#lit)))
                }
            })
        })
        .collect();
    let with_keywords = (!keywords.is_empty()).then(|| {
        quote! {
            let c = match c.with_keywords(::std::vec![#(#keywords),*]) {
                ::core::result::Result::Ok(c) => c,
                ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] checked the keywords at compile time: {e}"),
            };
        }
    });
    let strict = opts.strict.then(|| quote!(let c = c.strict();));
    let reduce_decl = opts.reduce.as_ref().map(|identity| {
        let value = match identity {
            None => quote!(::core::option::Option::None),
            Some(syn::Lit::Bool(b)) => quote!(::core::option::Option::Some(#krate::nd::Value::Bool(#b))),
            Some(syn::Lit::Float(f)) => quote!(::core::option::Option::Some(#krate::nd::Value::Float(#f))),
            Some(lit) => quote!(::core::option::Option::Some(#krate::nd::Value::Int(#lit))),
        };
        quote! {
            let c = match c.associative(#value) {
                ::core::result::Result::Ok(c) => c,
                ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] checked the arity at compile time: {e}"),
            };
        }
    });
    let positional: Vec<&Param> = model
        .params
        .iter()
        .filter(|p| p.keyword.is_none() && !matches!(p.shape, Shape::Out))
        .collect();
    let kw_params: Vec<&Param> = model
        .params
        .iter()
        .filter(|p| p.keyword.is_some())
        .collect();
    let pos_names: Vec<&Ident> = positional.iter().map(|p| &p.name).collect();
    let kw_names: Vec<&Ident> = kw_params.iter().map(|p| &p.name).collect();
    let kw_strs: Vec<String> = kw_names.iter().map(|n| n.to_string()).collect();
    let call_doc = format!("Calls `{name_str}` on arrays (anything [`IntoArray`]({}::nd::IntoArray)), broadcasting them together.", krate.to_string().replace(' ', ""));
    let reduce_fn = opts.reduce.as_ref().map(|_| {
        quote! {
            /// Reduces `array` with this associative operation over `axis`
            /// (`None`: every axis; negative ones count from the end).
            ///
            /// # Errors
            ///
            /// As the reduction callable (an axis out of range or repeated,
            /// an empty reduction without identity, …).
            #vis fn reduce(
                array: impl #krate::nd::IntoArray,
                axis: ::core::option::Option<&[i64]>,
                keepdims: bool,
            ) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                static REDUCTION: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| match #name::__callable().reduce() {
                        ::core::result::Result::Ok(r) => r,
                        ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] declared the reduction: {e}"),
                    });
                #krate::__private::reduce(&*REDUCTION, array, axis, keepdims)
            }

            /// Scans `array` with this associative operation along `axis`
            /// (negative from the end; along a `var` dimension, each
            /// ragged row): element `i` combines elements `0..=i` in order.
            ///
            /// # Errors
            ///
            /// As the scan callable (an axis out of range, a fixed axis
            /// with `var` dimensions inside it, …).
            #vis fn accumulate(
                array: impl #krate::nd::IntoArray,
                axis: i64,
            ) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                static SCAN: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| match #name::__callable().accumulate() {
                        ::core::result::Result::Ok(r) => r,
                        ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] declared the operation associative: {e}"),
                    });
                #krate::__private::accumulate(&*SCAN, array, axis)
            }
        }
    });
    let sig_list = &signatures;
    let single = (signatures.len() == 1).then(|| {
        let s = &signatures[0];
        quote! {
            /// The datashape signature.
            #vis const SIGNATURE: &'static str = #s;
        }
    });
    let call_body = if kw_names.is_empty() {
        quote!(__callable.call(&[#(&*#pos_names),*]))
    } else {
        quote!(__callable.call_kw(&[#(&*#pos_names),*], &[#((#kw_strs, &*#kw_names)),*]))
    };
    let mod_doc =
        format!("The callable made by `#[elemental]` from [`{name_str}`](fn@{name_str}).");
    let span = name.span();
    // An uninhabited enum of the fn's name holds the items: it lives in
    // the type namespace only, beside the fn in the value namespace, and
    // unlike a module it sees the fn wherever the fn is declared (inside a
    // function body too).
    let module = quote_spanned! {span=>
        #[doc = #mod_doc]
        #[allow(non_camel_case_types, clippy::all)]
        #vis enum #name {}

        #[allow(clippy::all, dead_code)]
        impl #name {
            #single
            /// The datashape signature of each overload.
            #vis const SIGNATURES: &'static [&'static str] = &[#(#sig_list),*];

            /// The datashape signatures, as types.
            #vis fn signatures() -> ::std::vec::Vec<#krate::ndt::Type> {
                Self::SIGNATURES
                    .iter()
                    .map(|s| #krate::__private::parse_checked(s))
                    .collect()
            }

            /// The callable, built once.
            #[doc(hidden)]
            #vis fn __callable() -> &'static #krate::func::Callable {
                static CALLABLE: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| {
                        let c = #krate::__private::callable(#name_str, ::std::vec![#(#overloads),*]);
                        #with_keywords
                        #strict
                        #reduce_decl
                        c
                    });
                &*CALLABLE
            }

            /// The callable (built once; this is a cheap clone), for
            /// composition: `outer`, reductions, registries.
            #vis fn callable() -> #krate::func::Callable {
                ::core::clone::Clone::clone(Self::__callable())
            }

            #[doc = #call_doc]
            ///
            /// # Errors
            ///
            /// An argument that is not an array, arguments that do not
            /// broadcast, or data types no overload takes.
            #vis fn call(
                #(#pos_names: impl #krate::nd::IntoArray,)*
                #(#kw_names: impl #krate::nd::IntoArray,)*
            ) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                // The callable first: making it installs the evaluation of
                // expression arguments.
                let __callable = Self::__callable();
                #(let #pos_names = #krate::nd::IntoArray::into_arg(#pos_names)?;)*
                #(let #kw_names = #krate::nd::IntoArray::into_arg(#kw_names)?;)*
                #call_body
            }

            /// This function as a node of an expression, fused with the
            /// rest of it when evaluated (`dynd::func::Eval`): arguments
            /// are arrays, Rust numbers or expressions.
            #vis fn expr<'__e>(
                #(#pos_names: impl ::core::convert::Into<#krate::nd::expr::Expr<'__e>>,)*
                #(#kw_names: impl ::core::convert::Into<#krate::nd::expr::Expr<'__e>>,)*
            ) -> #krate::nd::expr::Expr<'__e> {
                let args: ::std::vec::Vec<#krate::nd::expr::Expr<'__e>> = ::std::vec![
                    #(::core::convert::Into::into(#pos_names),)*
                    #(::core::convert::Into::into(#kw_names),)*
                ];
                Self::__callable().expr(args)
            }

            #reduce_fn
        }
    };
    quote! {
        #user_fn
        #module
    }
}

pub(super) fn scalar_tokens(s: Scalar, krate: &TokenStream) -> TokenStream {
    let v = format_ident!("{}", format!("{s:?}"));
    quote!(#krate::ndt::Scalar::#v)
}

/// One overload: the fn for one binding of the generic parameters.
pub(super) fn overload(
    model: &Model,
    bind: &[(Ident, syn::Type)],
    sig: &str,
    name: &Ident,
    core: bool,
    krate: &TokenStream,
) -> TokenStream {
    let turbofish = if bind.is_empty() {
        quote!()
    } else {
        let types = bind.iter().map(|(_, t)| t);
        quote!(::<#(#types),*>)
    };
    let f = quote!(#name #turbofish);
    let text_ret = matches!(&model.ret, Some((t, _)) if is_text(t));
    if text_ret || model.params.iter().any(|p| is_text(&p.elem)) {
        return text_overload(model, &f, text_ret, krate);
    }
    if !core {
        // One constructor for every arity and flavour: the function's
        // type says whether it takes `?T` or can fail.
        return quote!(#krate::func::Overload::new(#krate::func::Leaf::map_dispatched(#f)));
    }
    let mut closure_params = Vec::new();
    let mut call_args = Vec::new();
    let mut prelude = Vec::new();
    for (i, p) in model.params.iter().enumerate() {
        let elem = substitute(&p.elem, bind);
        let v = format_ident!("__arg{}", i);
        match p.shape {
            Shape::Scalar => {
                closure_params.push(quote!(#v: #krate::func::CoreSlice<'_, #elem>));
                prelude.push(quote! {
                    let ::core::option::Option::Some(&#v) = #v.as_slice().first() else { return };
                });
                call_args.push(quote!(#v));
            }
            Shape::Slice => {
                closure_params.push(quote!(#v: #krate::func::CoreSlice<'_, #elem>));
                call_args.push(quote!(#v.as_slice()));
            }
            Shape::Array(n) => {
                closure_params.push(quote!(#v: #krate::func::CoreSlice<'_, #elem>));
                prelude.push(quote! {
                    let ::core::result::Result::Ok(#v) = <[#elem; #n] as ::core::convert::TryFrom<&[#elem]>>::try_from(#v.as_slice()) else { return };
                });
                call_args.push(quote!(#v));
            }
            Shape::Out => {}
        }
    }
    let out_elem = match (
        &model.ret,
        model.params.iter().find(|p| matches!(p.shape, Shape::Out)),
    ) {
        (Some((t, _)), _) => substitute(t, bind),
        (None, Some(p)) => substitute(&p.elem, bind),
        (None, None) => unreachable!("checked: a result or a result parameter"),
    };
    let body = match &model.ret {
        Some((_, Shape::Scalar)) => quote! {
            let __r = #f(#(#call_args),*);
            if let ::core::option::Option::Some(__o) = __out.as_mut_slice().first_mut() {
                *__o = __r;
            }
        },
        Some(_) => quote! {
            let __r = #f(#(#call_args),*);
            for (__o, __v) in __out.as_mut_slice().iter_mut().zip(__r) {
                *__o = __v;
            }
        },
        None => quote! {
            #f(#(#call_args,)* __out.as_mut_slice());
        },
    };
    quote! {
        #krate::func::Overload::core(
            match #krate::func::CoreLeaf::map(
                #sig,
                |#(#closure_params,)* mut __out: #krate::func::CoreSliceMut<'_, #out_elem>| {
                    #(#prelude)*
                    #body
                },
            ) {
                ::core::result::Result::Ok(leaf) => leaf,
                ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] checked this signature at compile time: {e}"),
            }
        )
    }
}

/// The overload of a fn over text (the forms `check_text` allows): a
/// leaf reading each `&str` in place. A `String` result is appended to
/// the result's text; a `&str` result of one `&str` parameter is a view
/// of it (other `&str` results are copied). `Option`s go through the
/// leaves taking every string as an `Option<&str>`.
fn text_overload(
    model: &Model,
    f: &TokenStream,
    text_ret: bool,
    krate: &TokenStream,
) -> TokenStream {
    let n = model.params.len();
    let vars: Vec<Ident> = (0..n).map(|i| format_ident!("__s{}", i)).collect();
    let typed: Vec<TokenStream> = vars.iter().map(|v| quote!(#v: &str)).collect();
    let owned = matches!(&model.ret, Some((t, _)) if is_string(t));
    let any_option = model.params.iter().any(|p| p.option);
    let general = any_option || model.ret_option || model.fallible;
    let leaf = match (general, text_ret) {
        // A part of the one argument: a view.
        (_, true) if n == 1 && !any_option && !owned && !model.fallible => {
            let ctor = if model.ret_option {
                quote!(text_borrow1_or_na)
            } else {
                quote!(text_borrow1)
            };
            quote!(#krate::func::Leaf::#ctor(#f))
        }
        (false, true) => {
            let value = if owned {
                quote!(&#f(#(#vars),*))
            } else {
                quote!(#f(#(#vars),*))
            };
            let ctor = format_ident!("text_map{}", n);
            quote!(#krate::func::Leaf::#ctor(|#(#typed,)* __out: &mut #krate::func::TextSink<'_>| __out.push_str(#value)))
        }
        (false, false) if n <= 2 => {
            let ctor = format_ident!("text{}", n);
            quote!(#krate::func::Leaf::#ctor(|#(#typed),*| #f(#(#vars),*)))
        }
        // Options, or three strings to a scalar: every string taken as an
        // `Option<&str>`, the plain ones `Some` (NA in them never reaches
        // the fn: it makes the result NA).
        _ => {
            let options: Vec<bool> = model.params.iter().map(|p| p.option).collect();
            let ret_option = model.ret_option;
            let none = match (text_ret, model.fallible) {
                (true, false) => quote!(false),
                (true, true) => quote!(::core::result::Result::Ok(false)),
                (false, false) => quote!(::core::option::Option::None),
                (false, true) => quote!(::core::result::Result::Ok(::core::option::Option::None)),
            };
            let unwrap: Vec<TokenStream> = model
                .params
                .iter()
                .zip(&vars)
                .filter(|(p, _)| !p.option)
                .map(|(_, v)| quote!(let ::core::option::Option::Some(#v) = #v else { return #none };))
                .collect();
            // A fallible fn's value, its error as its message.
            let call = if model.fallible {
                quote!(match #f(#(#vars),*) {
                    ::core::result::Result::Ok(__v) => __v,
                    ::core::result::Result::Err(__e) => {
                        return ::core::result::Result::Err(::std::string::ToString::to_string(&__e))
                    }
                })
            } else {
                quote!(#f(#(#vars),*))
            };
            let body = match (text_ret, ret_option) {
                (false, true) => call,
                (false, false) => quote!(::core::option::Option::Some(#call)),
                (true, true) => quote! {
                    match #call {
                        ::core::option::Option::Some(__v) => {
                            __out.push_str(::core::convert::AsRef::<str>::as_ref(&__v));
                            true
                        }
                        ::core::option::Option::None => false,
                    }
                },
                (true, false) => quote! {
                    __out.push_str(::core::convert::AsRef::<str>::as_ref(&#call));
                    true
                },
            };
            let body = if model.fallible {
                quote!(::core::result::Result::Ok({ #body }))
            } else {
                body
            };
            if text_ret {
                let ctor = if model.fallible {
                    quote!(text_try_map)
                } else {
                    quote!(text_opt_map)
                };
                quote!(#krate::func::Leaf::#ctor(
                    [#(#options),*],
                    #ret_option,
                    |[#(#vars),*]: [::core::option::Option<&str>; #n], __out: &mut #krate::func::TextSink<'_>| {
                        #(#unwrap)*
                        #body
                    },
                ))
            } else {
                let ctor = if model.fallible {
                    quote!(text_try)
                } else {
                    quote!(text_opt)
                };
                quote!(#krate::func::Leaf::#ctor(
                    [#(#options),*],
                    #ret_option,
                    |[#(#vars),*]: [::core::option::Option<&str>; #n]| {
                        #(#unwrap)*
                        #body
                    },
                ))
            }
        }
    };
    quote!(#krate::func::Overload::new(#leaf))
}
