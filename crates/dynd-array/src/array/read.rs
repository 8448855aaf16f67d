//! Reading an array's elements into Rust values: as a slice, a `Vec`,
//! one element, a [`Value`] tree or JSON.

use super::*;

impl Array {
    /// The elements as a slice: the array must be C-contiguous with data
    /// type `T`.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type, [`Error::NeedsArray`] for
    /// a layout that is not one contiguous run.
    pub fn as_slice<T: Element>(&self) -> Result<&[T], Error> {
        self.check_dtype::<T>()?;
        let Some(count) = self.c_contiguous_count() else {
            return Err(Error::NeedsArray {
                op: "as_slice".into(),
                expected: "a C-contiguous array (to_vec copies any layout)",
                found: self.ty.clone(),
            });
        };
        if count == 0 {
            // An empty view's offset is not checked against its block
            // (it reaches no element), so it is not read.
            return Ok(&[]);
        }
        let len = count * std::mem::size_of::<T>();
        let bytes = self
            .data_block()
            .bytes()
            .get(self.data_offset()..self.data_offset() + len)
            .unwrap_or_else(|| unreachable!("a validated array's elements lie in its block"));
        Ok(cast_slice(bytes)
            .unwrap_or_else(|| unreachable!("a validated array's elements are aligned")))
    }

    pub(super) fn check_dtype<T: Element>(&self) -> Result<(), Error> {
        // A plain `T` never reads `?T` data: `Ok` means `T` elements.
        self.check_item::<T>().map(|_| ())
    }

    /// The elements as the `Vec<T>` they live in, without copying: the
    /// array must be the only owner of memory made from a `Vec<T>`
    /// ([`Array::from_vec`], `From<Vec<T>>`, an ndarray array), and cover
    /// all of it in C order. Otherwise the array comes back unchanged (use
    /// [`Array::to_vec`] to copy).
    ///
    /// ```
    /// let v = vec![1.0f64, 2.0, 3.0];
    /// let at = v.as_ptr();
    /// let back = dynd::nd::Array::from_vec(v).try_into_vec::<f64>().unwrap();
    /// assert_eq!((back.as_ptr(), back), (at, vec![1.0, 2.0, 3.0]));
    /// ```
    ///
    /// # Errors
    ///
    /// The array itself, when its memory is shared, not a `Vec<T>`, or not
    /// all of it in C order.
    pub fn try_into_vec<T: Element>(self) -> Result<Vec<T>, Array> {
        let count: usize = self.ty.fixed_shape().map_or(0, |s| s.iter().product());
        let whole = self.dtype().as_scalar() == Some(T::SCALAR)
            && !self.ty.has_var_dim()
            && self.is_c_contiguous()
            && self.offset == 0
            && Arc::strong_count(&self.data) == 1
            && Arc::weak_count(&self.data) == 0
            && count.checked_mul(std::mem::size_of::<T>()) == Some(self.data.len());
        if !whole {
            return Err(self);
        }
        let (ty, meta, block) = (
            self.ty.clone(),
            Arc::clone(&self.meta),
            Arc::clone(&self.data),
        );
        drop(self);
        MemoryBlock::into_vec::<T>(block).map_err(|block| {
            // SAFETY: the parts of the valid array just taken apart.
            unsafe { Array::from_parts_unchecked(ty, meta, block, 0) }
        })
    }

    /// The elements in C order (any strides), copied: as `T`s for a `T`
    /// array, or as `Option<T>`s for a `?T` (or a `T`) array (see
    /// [`Item`]).
    ///
    /// ```
    /// use dynd::nd::array;
    ///
    /// let a = array![1.5, null, 3.0];
    /// assert_eq!(a.to_vec::<Option<f64>>()?, [Some(1.5), None, Some(3.0)]);
    /// // NA has no `f64`: the error says how to read it.
    /// let e = a.to_vec::<f64>().unwrap_err().to_string();
    /// assert!(e.contains("Option<T>") && e.contains("fill_na"), "{e}");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type;
    /// [`Error::NeedsArray`] for `var` dimensions.
    pub fn to_vec<T: Item>(&self) -> Result<Vec<T>, Error> {
        let option = self.check_item::<T>()?;
        if self.ty.has_var_dim() {
            return Err(Error::NeedsArray {
                op: "to_vec".into(),
                expected: "an array without var dimensions (to_value and to_nested take any)",
                found: self.ty.clone(),
            });
        }
        if !option {
            if let Ok(xs) = self.as_slice::<T::Number>() {
                return Ok(xs.iter().map(|&x| T::from_parts(x, true)).collect());
            }
        }
        let size = std::mem::size_of::<T::Number>();
        let data = self.data_block().bytes();
        let mut out = Vec::new();
        let (dims, _) = self.arrmeta().fixed_dims();
        let base = self.data_offset() as isize;
        crate::offsets::for_each_offset(&dims, |at| {
            // The value, then (for `?T`) its flag byte.
            let item = usize::try_from(base + at).ok().and_then(|at| {
                let x = data
                    .get(at..at.checked_add(size)?)
                    .and_then(read::<T::Number>)?;
                let there = !option || *data.get(at + size)? != 0;
                Some(T::from_parts(x, there))
            });
            match item {
                Some(x) => out.push(x),
                None => unreachable!("a validated array's elements are in its block"),
            }
        });
        Ok(out)
    }

    /// Whether this array's elements are `?T` where `I` reads `T` or
    /// `Option<T>` (`Ok(false)` for a `T` array).
    pub(crate) fn check_item<I: Item>(&self) -> Result<bool, Error> {
        let number = I::Number::SCALAR;
        match self.dtype().kind() {
            TypeKind::Scalar(s) if *s == number => Ok(false),
            TypeKind::Option(t) if I::OPTION && t.as_scalar() == Some(number) => Ok(true),
            _ => Err(Error::DtypeMismatch {
                actual: self.dtype().clone(),
                requested: if I::OPTION {
                    Type::option(number.into())?
                } else {
                    number.into()
                },
            }),
        }
    }

    /// One element of a numeric array, by index.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`], or [`Error::Index`] for an index out of
    /// bounds or of the wrong length.
    pub fn get<T: Element>(&self, index: &[usize]) -> Result<T, Error> {
        self.check_dtype::<T>()?;
        let mut m: &Arrmeta = self.arrmeta();
        let mut offset = self.data_offset() as isize;
        let mut data: &[u8] = self.data_block().bytes();
        for (axis, &i) in index.iter().enumerate() {
            let out_of_bounds = |size: usize| Error::Index {
                index: i as i64,
                axis,
                size,
            };
            let Some((n, element, entries, first, stride)) = dim_entries(m, data, offset) else {
                return Err(out_of_bounds(0));
            };
            if i >= n {
                return Err(out_of_bounds(n));
            }
            data = entries;
            offset = first + i as isize * stride;
            m = element;
        }
        if !matches!(m, Arrmeta::Scalar) {
            return Err(Error::IndexCount {
                given: index.len(),
                ty: self.ty.clone(),
                ndim: self.ty.ndim(),
            });
        }
        let bytes = &data[offset as usize..offset as usize + T::SCALAR.size()];
        Ok(cast_slice::<T>(bytes)
            .map(|s| s[0])
            .unwrap_or_else(|| unreachable!("a validated array's elements are aligned")))
    }

    /// The array as a [`Value`] tree. The tree takes memory in proportion
    /// to the array's elements and lists; like any `Vec`, building it
    /// aborts if memory runs out: [`Array::try_to_value`] checks first.
    pub fn to_value(&self) -> Value {
        read_value(
            &self.ty,
            self.arrmeta(),
            self.data_block().bytes(),
            self.data_offset() as isize,
        )
    }

    /// The array as valid JSON text, every element: `null` for NA,
    /// `[re, im]` for complex, floats always with a fraction or exponent
    /// (`1.0`) and non-finite ones as the strings `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`, so [`Array::from_json`] reads the same values back:
    /// with the array's type given, exactly; with none, as the inferred
    /// type (floats stay floats). As [`Array::to_value`];
    /// [`Array::try_to_json`] checks the memory first.
    ///
    /// ```
    /// let a = dynd::nd::Array::from_vec(vec![1.0f64, f64::NAN, -0.0]);
    /// assert_eq!(a.to_json(), r#"[1.0, "NaN", -0.0]"#);
    /// let back = dynd::nd::Array::from_json(&a.to_json(), None)?;
    /// assert_eq!((back.ty(), back.to_string()), (a.ty(), a.to_string()));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        self.to_value().to_json()
    }
}
