//! Choosing an overload for the arguments' types, and the cache of resolutions.

use super::*;

/// The scalar a data type holds: itself, or an option's value type.
pub(super) fn value_scalar(t: &Type) -> Option<Scalar> {
    match t.kind() {
        TypeKind::Option(inner) => inner.as_scalar(),
        _ => t.as_scalar(),
    }
}

/// The scalar an argument of data type `t` dispatches on: its value
/// scalar, and `string` for a `fixed_string[N]` (or an option of one),
/// which the call casts to `string`.
fn dispatch_scalar(t: &Type) -> Option<Scalar> {
    let t = match t.kind() {
        TypeKind::Option(inner) => inner,
        _ => t,
    };
    match t.kind() {
        TypeKind::FixedString { .. } => Some(Scalar::String),
        // A zoned datetime computes as its UTC instants (the call casts
        // it, keeping the integers); the result takes the zone back.
        TypeKind::DateTimeTz { unit, .. } => Some(dynd_types::Temporal::DateTime(*unit).scalar()),
        _ => t.as_scalar(),
    }
}

/// `ret` (an overload's result data type for arguments of data types
/// `dtypes`) in the arguments' zone when it is a datetime and they have
/// one; datetimes of two zones, or a naive one with a zoned one, are an
/// error.
pub(super) fn zoned(name: &str, dtypes: &[&Type], ret: Type) -> Result<Type, Error> {
    use dynd_types::Temporal;
    let value = |t: &Type| match t.kind() {
        TypeKind::Option(inner) => inner.clone(),
        _ => t.clone(),
    };
    let mut zone: Option<dynd_types::Name> = None;
    let mut naive = false;
    for t in dtypes {
        match value(t).kind() {
            TypeKind::DateTimeTz { tz, .. } => match &zone {
                Some(z) if z != tz => {
                    return Err(zones(name, dtypes, "datetimes of two time zones"))
                }
                _ => zone = Some(tz.clone()),
            },
            TypeKind::Scalar(s)
                if matches!(s.temporal(), Some(Temporal::DateTime(_) | Temporal::Date)) =>
            {
                naive = true
            }
            _ => {}
        }
    }
    let Some(tz) = zone else { return Ok(ret) };
    if naive {
        return Err(zones(
            name,
            dtypes,
            "a naive datetime (or date) with a zoned one",
        ));
    }
    let option = matches!(ret.kind(), TypeKind::Option(_));
    match value(&ret).as_scalar().and_then(Scalar::temporal) {
        Some(Temporal::DateTime(unit)) => {
            let t = Type::new(TypeKind::DateTimeTz { unit, tz })?;
            if option {
                Ok(Type::option(t)?)
            } else {
                Ok(t)
            }
        }
        _ => Ok(ret),
    }
}

fn zones(name: &str, dtypes: &[&Type], why: &'static str) -> Error {
    let found: Vec<String> = dtypes.iter().map(|t| t.to_string()).collect();
    Error::TimeZones {
        name: name.to_string(),
        why,
        found: found.join(", ").into(),
    }
}

/// How far `from` is from `to` along the promotion ladder (category
/// changes weigh more than size changes).
pub(super) fn cost(from: Scalar, to: Scalar) -> usize {
    // Time types: the unit steps from the coarser to the finer (a date
    // one more step).
    if let (Some(f), Some(t)) = (from.temporal(), to.temporal()) {
        let step = |t: dynd_types::Temporal| t.unit().map_or(0, |u| u as usize + 1);
        return step(t).saturating_sub(step(f)) * 2;
    }
    let cat = |s: Scalar| match s.category() {
        ScalarCategory::Bool => 0,
        ScalarCategory::UnsignedInt | ScalarCategory::SignedInt => 1,
        ScalarCategory::Float => 2,
        ScalarCategory::Complex => 3,
        _ => 4,
    };
    // An unsigned target for a value that is not unsigned costs a little
    // more, so `bool` goes to `int8` rather than tying with `uint8`.
    let unsigned_detour = usize::from(
        to.category() == ScalarCategory::UnsignedInt
            && from.category() != ScalarCategory::UnsignedInt,
    );
    (cat(to) - cat(from)) * 100 + to.size().saturating_sub(from.size()) * 2 + unsigned_detour
}

impl Callable {
    /// The overload for these argument data types.
    ///
    /// # Errors
    ///
    /// [`Error::Arity`], [`Error::NoMatch`] listing the signatures, or
    /// [`Error::Ambiguous`] naming the tied candidates.
    pub fn dispatch(&self, dtypes: &[Type]) -> Result<&Overload, Error> {
        if self.whole_array_fn().is_some() {
            return Err(Error::ValueDependent {
                name: self.name.to_string(),
            });
        }
        if dtypes.len() != self.arity() {
            return Err(Error::Arity {
                name: self.name.to_string(),
                expected: self.arity(),
                found: dtypes.len(),
            });
        }
        // Options dispatch on their value types (NA propagates); a fixed
        // string as a string (the call casts it).
        let scalars: Option<Vec<Scalar>> = dtypes.iter().map(dispatch_scalar).collect();
        let no_match = || Error::NoMatch {
            name: self.name.to_string(),
            args: dtypes.to_vec(),
            candidates: self.signatures(),
        };
        let scalars = scalars.ok_or_else(no_match)?;
        if let Some(o) = self
            .overloads()
            .iter()
            .find(|o| o.inputs() == scalars.as_slice())
        {
            return Ok(o);
        }
        // NumPy's way: the common type of the arguments, if an overload takes it.
        let common = scalars
            .iter()
            .try_fold(scalars[0], |acc, s| dynd_types::promote_scalars(acc, *s));
        if let Some(c) = common {
            if let Some(o) = self
                .overloads()
                .iter()
                .find(|o| o.inputs().iter().all(|p| *p == c))
            {
                return Ok(o);
            }
        }
        let mut best: Vec<(usize, &Overload)> = Vec::new();
        for o in self.overloads().iter() {
            let fits = scalars
                .iter()
                .zip(o.inputs())
                .all(|(a, p)| can_cast_safely(*a, *p));
            if !fits {
                continue;
            }
            let c: usize = scalars
                .iter()
                .zip(o.inputs())
                .map(|(a, p)| cost(*a, *p))
                .sum();
            match best.first() {
                Some((b, _)) if c > *b => {}
                Some((b, _)) if c == *b => best.push((c, o)),
                _ => best = vec![(c, o)],
            }
        }
        match best.as_slice() {
            [] => Err(no_match()),
            [(_, o)] => Ok(o),
            tied => Err(Error::Ambiguous {
                name: self.name.to_string(),
                args: dtypes.to_vec(),
                candidates: tied.iter().map(|(_, o)| o.signature.clone()).collect(),
            }),
        }
    }

    /// The result type for these argument types: the broadcast dimensions
    /// over the chosen overload's return type. Works on types alone.
    ///
    /// # Errors
    ///
    /// As [`Callable::dispatch`], and [`dynd_types::Error::Broadcast`] (or
    /// `StrictRank`) naming the dimension.
    pub fn resolve(&self, args: &[Type]) -> Result<Type, Error> {
        let dtypes: Vec<Type> = args.iter().map(|t| t.dtype().clone()).collect();
        let o = self.dispatch(&dtypes)?;
        if let Body::Core(leaf) = &o.body {
            if let Some(t) = dtypes
                .iter()
                .find(|t| matches!(t.kind(), TypeKind::Option(_)))
            {
                return Err(dynd_kernels::Error::Unsupported {
                    operation: "an option argument to a core-dimension function",
                    ty: t.clone(),
                });
            }
            // The arguments as the overload takes them (after any cast).
            let cast = args
                .iter()
                .zip(o.inputs())
                .map(|(t, s)| Type::with_dims(t.split_dims().0.into_iter().cloned(), (*s).into()))
                .collect::<Result<Vec<_>, _>>()?;
            return crate::resolve_lifted(leaf.signature(), &cast, self.mode);
        }
        let ret = match &o.body {
            Body::Elementwise(leaf) => leaf.result_type(&dtypes.iter().collect::<Vec<_>>())?,
            Body::Core(_) => Type::from(o.output()),
        };
        let ret = zoned(&self.name, &dtypes.iter().collect::<Vec<_>>(), ret)?;
        let shaped = args
            .iter()
            .map(|t| {
                let (dims, _) = t.split_dims();
                Type::with_dims(dims.into_iter().cloned(), ret.clone())
            })
            .collect::<Result<Vec<_>, _>>()?;
        broadcast(&shaped, self.mode)
    }
}

impl Callable {
    /// Whether arguments of these types have the overload's element types
    /// already.
    pub(super) fn takes_as_is(&self, types: &[&Type], o: &Overload) -> bool {
        types
            .iter()
            .zip(o.inputs())
            .zip(o.options())
            .all(|((a, t), option)| {
                value_scalar(a.dtype()) == Some(*t)
                    && (!option || matches!(a.dtype().kind(), TypeKind::Option(_)))
            })
    }

    /// The overload and result type for these arguments, from the cache
    /// when the same argument types were seen before.
    pub(super) fn resolved(&self, args: &[&Array]) -> Result<Rc<Resolution>, Error> {
        // Up to four arguments on the stack without a collection (the
        // common case, on every call).
        if let [a, rest @ ..] = args {
            if rest.len() < 4 {
                let mut types = [a.ty(); 4];
                for (t, r) in types[1..].iter_mut().zip(rest) {
                    *t = r.ty();
                }
                return self.resolved_types(&types[..args.len()]);
            }
        }
        let types: Vec<&Type> = args.iter().map(|a| a.ty()).collect();
        self.resolved_types(&types)
    }

    /// The resolution for arguments of these types: the overload's index,
    /// the result type, and whether the arguments need no cast (from the
    /// cache when the same types were seen before).
    pub(crate) fn resolved_types(&self, args: &[&Type]) -> Result<Rc<Resolution>, Error> {
        let same = |types: &[Type]| {
            types.len() == args.len() && types.iter().zip(args).all(|(t, a)| t == *a)
        };
        // Newest first: a loop over one call finds its own entry at once,
        // however many other types were called before it. The entry before
        // `next` was written last.
        // A plain loop, not `find_map`: its closure was a call of its own
        // per entry, with a six-register prologue, on every call.
        let last = LAST.with(|last| {
            let last = last.borrow();
            for back in 1..=RECENT {
                if let Some((cache, types, hit)) =
                    &last.entries[(last.next + RECENT - back) % RECENT]
                {
                    if Arc::ptr_eq(cache, &self.cache) && same(types) {
                        return Some(hit.clone());
                    }
                }
            }
            None
        });
        if let Some(hit) = last {
            return Ok(hit);
        }
        let lock = || {
            self.cache
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        let key: Vec<Type> = args.iter().map(|&t| t.clone()).collect();
        let cached = lock().by_types.get(&key).cloned();
        let hit = Rc::new(match cached {
            Some(hit) => hit,
            None => {
                let ty = self.resolve(&key)?;
                let dtypes: Vec<Type> = key.iter().map(|t| t.dtype().clone()).collect();
                let o = self.dispatch(&dtypes)?;
                let index = self
                    .overloads()
                    .iter()
                    .position(|x| std::ptr::eq(x, o))
                    .unwrap_or_else(|| unreachable!("dispatch returns one of the overloads"));
                let as_is = self.takes_as_is(args, o);
                let plan = match &o.body {
                    Body::Elementwise(leaf) if as_is => FlatPlan::new(&ty, leaf),
                    _ => None,
                };
                let resolution = Resolution {
                    index,
                    ty,
                    as_is,
                    plan,
                };
                let mut cache = lock();
                if cache.by_types.len() >= CACHE_LIMIT {
                    cache.by_types.clear();
                }
                cache.by_types.insert(key.clone(), resolution.clone());
                resolution
            }
        });
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            let at = last.next;
            last.entries[at] = Some((self.cache.clone(), key, hit.clone()));
            last.next = (at + 1) % RECENT;
        });
        Ok(hit)
    }
}
