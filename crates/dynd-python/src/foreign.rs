//! Memory that crosses the boundary without a copy: NumPy arrays in and
//! out, Arrow's C data and stream interfaces (PyCapsules) in and out.
//!
//! This is the crate's one module with `unsafe` code. Each block says why
//! it holds; every array made over foreign memory goes through
//! [`Array::try_from_parts`] or the library's Arrow import, which check
//! each extent and alignment against the block, so a wrong shape or stride
//! from outside is an error, never a read out of bounds.

use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::ffi::{from_ffi, from_ffi_and_data_type, to_ffi, FFI_ArrowArray};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{make_array, ArrayRef};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::DataType;
use dynd::nd::arrow_interop::ToArrow;
use dynd::nd::{Array, Arrmeta, MemoryBlock};
use dynd::ndt::{Dim, Type};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyDict, PyTuple};

use crate::dtypes::{span, Numeric};
use crate::errors::{guarded, type_error, value_error};

const SCHEMA: &CStr = c"arrow_schema";
const ARRAY: &CStr = c"arrow_array";
const STREAM: &CStr = c"arrow_array_stream";

/// A NumPy array as a dynd array over the same memory, or `None` when its
/// elements have no dynd equivalent of the same layout (objects, strings,
/// records, a foreign byte order, unaligned data): the caller converts
/// those by value.
pub(crate) fn from_numpy(a: &Bound<'_, PyUntypedArray>) -> PyResult<Option<Array>> {
    let dtype = a.dtype();
    let native = dtype.is_native_byteorder().unwrap_or(true);
    let Some(numeric) = Numeric::of_numpy(dtype.kind(), dtype.itemsize()).filter(|_| native) else {
        return Ok(None);
    };
    if !a.is_aligned() {
        return Ok(None);
    }
    let (shape, strides) = (a.shape().to_vec(), a.strides().to_vec());
    let dims: Vec<(usize, isize)> = shape.iter().copied().zip(strides.iter().copied()).collect();
    let span = span(&dims, numeric.size())
        .map_err(|()| value_error("a NumPy array's extent overflows isize"))?;
    // SAFETY: `as_array_ptr` is the live `PyArrayObject` behind `a` (a
    // checked NumPy array); its `data` and `flags` fields are plain reads.
    let (data, flags) = unsafe {
        let raw = &*a.as_array_ptr();
        (raw.fields.data as *const u8, raw.fields.flags)
    };
    let writable = flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0;
    // The lowest byte any element reaches (NumPy strides may be negative).
    let (base, len, offset) = match span {
        None => (data, 0, 0),
        Some((low, len)) => (data.wrapping_offset(low), len, low.unsigned_abs()),
    };
    let owner: Py<PyAny> = a.clone().into_any().unbind();
    // SAFETY: NumPy keeps the `len` bytes from `base` (every element of
    // the array, by the span computed above) allocated and in place
    // while the array object lives, and the block holds a reference to
    // it. The block is writable only where NumPy's is, as a NumPy view
    // would be. Alignment and extents are checked again below, by
    // `try_from_parts`.
    let block = unsafe { MemoryBlock::from_external(base, len, Box::new(owner), writable) };
    let ty = Type::with_dims(shape.iter().map(|&n| Dim::Fixed(n)), numeric.scalar.into())
        .map_err(crate::to_py_err)?;
    // Numbers and `bool` have no arrmeta of their own.
    let mut meta = Arrmeta::Scalar;
    for (&n, &s) in shape.iter().zip(&strides).rev() {
        meta = Arrmeta::Fixed {
            size: n,
            stride: s,
            element: Box::new(meta),
        };
    }
    guarded(|| Array::try_from_parts(ty, Arc::new(meta), block, offset)).map(Some)
}

/// NumPy's `__array_interface__` (version 3) of a dense array of numbers,
/// or `None` if NumPy cannot view it (a `var` dimension, strings, NA).
pub(crate) fn array_interface<'py>(
    py: Python<'py>,
    a: &Array,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(numeric) = Numeric::of_type(a.dtype()) else {
        return Ok(None);
    };
    let Ok(shape) = a.dims() else {
        return Ok(None);
    };
    if a.shape().iter().any(|d| !matches!(d, Dim::Fixed(_))) {
        return Ok(None);
    }
    let d = PyDict::new(py);
    d.set_item("version", 3)?;
    d.set_item("typestr", numeric.typestr())?;
    d.set_item("shape", PyTuple::new(py, &shape)?)?;
    d.set_item("strides", PyTuple::new(py, a.strides())?)?;
    // Read-only: a dynd array is a value, and its memory may be shared
    // with other arrays (views, clones) that must not see NumPy's writes.
    d.set_item("data", (a.data_ptr() as usize, true))?;
    Ok(Some(d))
}

/// `(schema, array)` capsules of Arrow's C data interface for `a`
/// (`__arrow_c_array__`): Arrow arrays over dynd's buffers.
pub(crate) fn to_arrow_capsules<'py>(py: Python<'py>, a: &Array) -> PyResult<Bound<'py, PyTuple>> {
    let arrow: ArrayRef = guarded(|| a.to_arrow())?;
    let (array, schema) =
        to_ffi(&arrow.to_data()).map_err(|e| value_error(format!("Arrow export: {e}")))?;
    // The capsules own the structs; a consumer moves them out (leaving
    // them released), and a capsule dropped unconsumed releases its own.
    let schema = PyCapsule::new_with_value(py, schema, SCHEMA)?;
    let array = PyCapsule::new_with_value(py, array, ARRAY)?;
    PyTuple::new(py, [schema.into_any(), array.into_any()])
}

/// An object's Arrow data as one Arrow array, if it speaks the PyCapsule
/// interface: `__arrow_c_array__` (shared buffers) or
/// `__arrow_c_stream__` (chunks, concatenated by the caller).
pub(crate) fn arrow_chunks(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<ArrayRef>>> {
    if obj.hasattr("__arrow_c_array__")? {
        let pair = obj.call_method0("__arrow_c_array__")?;
        let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) = pair.extract()?;
        let schema_ptr = schema.pointer_checked(Some(SCHEMA))?;
        let array_ptr = array.pointer_checked(Some(ARRAY))?;
        // SAFETY: the capsules are named as the PyCapsule interface names
        // them, so they point at an `ArrowSchema` and an `ArrowArray` the
        // producer keeps until the capsules go. The array is moved out
        // (its place left released, so the capsule's destructor does not
        // release it again); the schema is only read.
        let data = unsafe {
            let array = FFI_ArrowArray::from_raw(array_ptr.as_ptr().cast());
            let schema = &*(schema_ptr.as_ptr() as *const FFI_ArrowSchema);
            from_ffi(array, schema)
        }
        .map_err(|e| value_error(format!("Arrow import: {e}")))?;
        return Ok(Some(vec![make_array(data)]));
    }
    if obj.hasattr("__arrow_c_stream__")? {
        let capsule = obj.call_method0("__arrow_c_stream__")?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let ptr = capsule.pointer_checked(Some(STREAM))?;
        // SAFETY: a capsule named `arrow_array_stream` points at an
        // `ArrowArrayStream`; moving it out leaves a released one behind,
        // which the capsule's destructor leaves alone.
        let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.as_ptr().cast()) };
        return read_stream(stream).map(Some);
    }
    Ok(None)
}

/// Every chunk of an Arrow stream, of any type (a `RecordBatchReader`
/// would insist on a struct type).
fn read_stream(mut stream: FFI_ArrowArrayStream) -> PyResult<Vec<ArrayRef>> {
    let (Some(get_schema), Some(get_next)) = (stream.get_schema, stream.get_next) else {
        return Err(value_error("Arrow import: the stream has been released"));
    };
    let failed = |stream: &mut FFI_ArrowArrayStream, code: i32| {
        let text = stream
            .get_last_error
            // SAFETY: the stream's own callback on the stream; it returns
            // null or a C string that lives until the next call.
            .map(|f| unsafe { f(stream) })
            .filter(|p| !p.is_null())
            // SAFETY: non-null, a C string (as above).
            .map(|p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
            .unwrap_or_default();
        value_error(format!(
            "Arrow import: the stream failed (code {code}) {text}"
        ))
    };
    let mut schema = FFI_ArrowSchema::empty();
    // SAFETY: the stream's callback with the stream and an empty schema to
    // fill, as the C stream interface specifies.
    let code = unsafe { get_schema(&mut stream, &mut schema) };
    if code != 0 {
        return Err(failed(&mut stream, code));
    }
    let data_type =
        DataType::try_from(&schema).map_err(|e| value_error(format!("Arrow import: {e}")))?;
    let mut chunks = Vec::new();
    loop {
        let mut array = FFI_ArrowArray::empty();
        // SAFETY: as above, an empty array for the callback to fill.
        let code = unsafe { get_next(&mut stream, &mut array) };
        if code != 0 {
            return Err(failed(&mut stream, code));
        }
        if array.is_released() {
            break;
        }
        // SAFETY: the producer filled `array` with data of the stream's
        // schema, whose type is `data_type`.
        let data = unsafe { from_ffi_and_data_type(array, data_type.clone()) }
            .map_err(|e| value_error(format!("Arrow import: {e}")))?;
        chunks.push(make_array(data));
    }
    Ok(chunks)
}

/// A dynd array of Arrow chunks: the one chunk shared, several
/// concatenated (one copy), none an empty array of the stream's type.
pub(crate) fn from_arrow_chunks(chunks: &[ArrayRef]) -> PyResult<Array> {
    let arrays = chunks
        .iter()
        .map(|c| guarded(|| Array::from_arrow(c.as_ref())))
        .collect::<PyResult<Vec<_>>>()?;
    match arrays.len() {
        0 => Err(type_error("an Arrow stream without chunks has no array")),
        1 => Ok(arrays.into_iter().next().expect("one chunk")),
        _ => {
            let refs: Vec<&Array> = arrays.iter().collect();
            guarded(|| dynd::nd::concatenate(&refs, 0))
        }
    }
}

/// DLPack's structs (`dlpack.h`, version 1.0), for `__dlpack__`.
mod dlpack {
    use std::ffi::c_void;

    #[repr(C)]
    pub(super) struct Device {
        pub(super) device_type: i32,
        pub(super) device_id: i32,
    }

    #[repr(C)]
    #[derive(Clone, Copy)]
    pub(super) struct DataType {
        pub(super) code: u8,
        pub(super) bits: u8,
        pub(super) lanes: u16,
    }

    #[repr(C)]
    pub(super) struct Tensor {
        pub(super) data: *mut c_void,
        pub(super) device: Device,
        pub(super) ndim: i32,
        pub(super) dtype: DataType,
        pub(super) shape: *mut i64,
        pub(super) strides: *mut i64,
        pub(super) byte_offset: u64,
    }

    /// `DLManagedTensor` (unversioned).
    #[repr(C)]
    pub(super) struct Managed {
        pub(super) tensor: Tensor,
        pub(super) manager_ctx: *mut c_void,
        pub(super) deleter: Option<unsafe extern "C" fn(*mut Managed)>,
    }

    #[repr(C)]
    pub(super) struct Version {
        pub(super) major: u32,
        pub(super) minor: u32,
    }

    /// `DLManagedTensorVersioned`.
    #[repr(C)]
    pub(super) struct ManagedVersioned {
        pub(super) version: Version,
        pub(super) manager_ctx: *mut c_void,
        pub(super) deleter: Option<unsafe extern "C" fn(*mut ManagedVersioned)>,
        pub(super) flags: u64,
        pub(super) tensor: Tensor,
    }

    /// `DLPACK_FLAG_BITMASK_READ_ONLY`.
    pub(super) const READ_ONLY: u64 = 1;
    /// `kDLCPU`.
    pub(super) const CPU: i32 = 1;
}

/// What a DLPack capsule's tensor points into: the array (kept alive)
/// and the shape and strides the tensor's pointers name.
#[repr(C)]
struct Held<M> {
    /// First, so that a pointer to the holder is one to the managed
    /// tensor DLPack's consumer sees.
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    array: Array,
}

unsafe extern "C" fn delete_unversioned(m: *mut dlpack::Managed) {
    // SAFETY: `m` is the first field of a `Held` boxed by `to_dlpack`,
    // and DLPack calls the deleter once.
    drop(unsafe { Box::from_raw(m as *mut Held<dlpack::Managed>) });
}

unsafe extern "C" fn delete_versioned(m: *mut dlpack::ManagedVersioned) {
    // SAFETY: as `delete_unversioned`.
    drop(unsafe { Box::from_raw(m as *mut Held<dlpack::ManagedVersioned>) });
}

const DLTENSOR: &CStr = c"dltensor";
const DLTENSOR_VERSIONED: &CStr = c"dltensor_versioned";

unsafe extern "C" fn capsule_unversioned(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: called by Python with the capsule; a consumer that took the
    // tensor renamed it (`used_dltensor`) and owns its deleter now.
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(capsule, DLTENSOR.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(capsule, DLTENSOR.as_ptr());
            delete_unversioned(m.cast());
        }
    }
}

unsafe extern "C" fn capsule_versioned(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: as `capsule_unversioned`.
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(capsule, DLTENSOR_VERSIONED.as_ptr()) == 1 {
            let m = pyo3::ffi::PyCapsule_GetPointer(capsule, DLTENSOR_VERSIONED.as_ptr());
            delete_versioned(m.cast());
        }
    }
}

/// A DLPack capsule over `a`'s memory (`__dlpack__`): versioned (and
/// marked read-only) when the consumer takes DLPack 1, else the legacy
/// form. Dense arrays of numbers only; strides must be whole elements.
pub(crate) fn to_dlpack<'py>(
    py: Python<'py>,
    a: &Array,
    versioned: bool,
) -> PyResult<Bound<'py, PyCapsule>> {
    let unsupported = || {
        pyo3::exceptions::PyBufferError::new_err(format!(
            "an array of type {} has no DLPack form (only dense numbers do)",
            a.ty()
        ))
    };
    let numeric = Numeric::of_type(a.dtype()).ok_or_else(unsupported)?;
    let dtype = dlpack::DataType {
        code: numeric.dlpack_code,
        bits: (numeric.size() * 8) as u8,
        lanes: 1,
    };
    if a.shape().iter().any(|d| !matches!(d, Dim::Fixed(_))) {
        return Err(unsupported());
    }
    let size = numeric.size() as isize;
    let shape: Vec<i64> = a
        .dims()
        .map_err(crate::to_py_err)?
        .iter()
        .map(|&n| n as i64)
        .collect();
    let mut strides = Vec::with_capacity(shape.len());
    for s in a.strides() {
        if s % size != 0 {
            return Err(pyo3::exceptions::PyBufferError::new_err(format!(
                "a stride of {s} bytes is not a whole number of {size}-byte elements"
            )));
        }
        strides.push((s / size) as i64);
    }
    let tensor = |held_shape: *mut i64, held_strides: *mut i64| dlpack::Tensor {
        data: a.data_ptr() as *mut std::ffi::c_void,
        device: dlpack::Device {
            device_type: dlpack::CPU,
            device_id: 0,
        },
        ndim: shape.len() as i32,
        dtype,
        shape: held_shape,
        strides: held_strides,
        byte_offset: 0,
    };
    let array = a.clone();
    if versioned {
        let managed = dlpack::ManagedVersioned {
            version: dlpack::Version { major: 1, minor: 0 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_versioned),
            flags: dlpack::READ_ONLY,
            tensor: tensor(std::ptr::null_mut(), std::ptr::null_mut()),
        };
        return dlpack_capsule(
            py,
            managed,
            shape,
            strides,
            array,
            DLTENSOR_VERSIONED,
            capsule_versioned,
        );
    }
    let managed = dlpack::Managed {
        tensor: tensor(std::ptr::null_mut(), std::ptr::null_mut()),
        manager_ctx: std::ptr::null_mut(),
        deleter: Some(delete_unversioned),
    };
    dlpack_capsule(
        py,
        managed,
        shape,
        strides,
        array,
        DLTENSOR,
        capsule_unversioned,
    )
}

/// A managed tensor of either DLPack form.
trait ManagedTensor {
    fn tensor(&mut self) -> &mut dlpack::Tensor;
}

impl ManagedTensor for dlpack::Managed {
    fn tensor(&mut self) -> &mut dlpack::Tensor {
        &mut self.tensor
    }
}

impl ManagedTensor for dlpack::ManagedVersioned {
    fn tensor(&mut self) -> &mut dlpack::Tensor {
        &mut self.tensor
    }
}

/// The capsule `name` over `managed`, which it holds with the shape,
/// strides and array its tensor points into; `destructor` frees it unless
/// a consumer took it.
fn dlpack_capsule<'py, M: ManagedTensor>(
    py: Python<'py>,
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    array: Array,
    name: &'static CStr,
    destructor: unsafe extern "C" fn(*mut pyo3::ffi::PyObject),
) -> PyResult<Bound<'py, PyCapsule>> {
    let mut held = Box::new(Held {
        managed,
        shape,
        strides,
        array,
    });
    // The vectors' buffers do not move with the box.
    let (shape, strides) = (held.shape.as_mut_ptr(), held.strides.as_mut_ptr());
    let tensor = held.managed.tensor();
    tensor.shape = shape;
    tensor.strides = strides;
    let ptr = Box::into_raw(held);
    // SAFETY: `ptr` is a live `Held` whose first field is the managed
    // tensor, as `destructor` and the tensor's deleter read it; the
    // capsule's destructor frees it unless a consumer took it (and with
    // it the deleter).
    unsafe {
        PyCapsule::new_with_pointer_and_destructor(
            py,
            std::ptr::NonNull::new_unchecked(ptr.cast()),
            name,
            Some(destructor),
        )
    }
}

/// Fills `view` for the buffer protocol (`memoryview(x)`, NumPy): a
/// read-only view of a dense array of numbers; its shape and strides live
/// in `view.internal` until [`release_buffer`].
///
/// # Safety
///
/// `view` is the `Py_buffer` Python passed to `__getbuffer__` for `obj`,
/// whose array is `a`.
pub(crate) unsafe fn fill_buffer(
    obj: &Bound<'_, PyAny>,
    a: &Array,
    view: *mut pyo3::ffi::Py_buffer,
    flags: std::ffi::c_int,
) -> PyResult<()> {
    use pyo3::exceptions::PyBufferError;
    use pyo3::ffi;
    if view.is_null() {
        return Err(PyBufferError::new_err("a null Py_buffer"));
    }
    if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
        return Err(PyBufferError::new_err(
            "dynd arrays are values: their buffers are read-only (write with out=)",
        ));
    }
    let numeric = Numeric::of_type(a.dtype()).ok_or_else(|| {
        PyBufferError::new_err(format!(
            "an array of type {} has no buffer (only dense numbers do)",
            a.ty()
        ))
    })?;
    if a.shape().iter().any(|d| !matches!(d, Dim::Fixed(_))) {
        return Err(PyBufferError::new_err(format!(
            "an array of type {} is ragged: it has no buffer",
            a.ty()
        )));
    }
    let dims = a.dims().map_err(crate::to_py_err)?;
    let strides = a.strides();
    let wants_strides = flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES;
    if !wants_strides && !a.is_c_contiguous() {
        return Err(PyBufferError::new_err(
            "the array is not C-contiguous and the consumer asked for no strides",
        ));
    }
    let (format, itemsize) = (numeric.format, numeric.size());
    let count: usize = dims.iter().product();
    // Shape then strides, kept until the buffer is released.
    let mut layout: Box<[isize]> = dims
        .iter()
        .map(|&n| n as isize)
        .chain(strides.iter().copied())
        .collect();
    let ndim = dims.len();
    let base = layout.as_mut_ptr();
    // SAFETY: `view` is Python's `Py_buffer` to fill (the caller's
    // contract); `obj` stays alive through the new reference stored in
    // `view.obj`, and the layout box through `view.internal`, freed by
    // `release_buffer`.
    unsafe {
        (*view).obj = obj.clone().into_ptr();
        (*view).buf = a.data_ptr() as *mut std::ffi::c_void;
        (*view).len = (count * itemsize) as isize;
        (*view).readonly = 1;
        (*view).itemsize = itemsize as isize;
        (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
            format.as_ptr() as *mut std::ffi::c_char
        } else {
            std::ptr::null_mut()
        };
        (*view).ndim = ndim as std::ffi::c_int;
        (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND {
            base
        } else {
            std::ptr::null_mut()
        };
        (*view).strides = if wants_strides {
            base.add(ndim)
        } else {
            std::ptr::null_mut()
        };
        (*view).suboffsets = std::ptr::null_mut();
        (*view).internal = Box::into_raw(layout) as *mut isize as *mut std::ffi::c_void;
    }
    Ok(())
}

/// Frees what [`fill_buffer`] kept in `view.internal`.
///
/// # Safety
///
/// `view` was filled by [`fill_buffer`] and is released once.
pub(crate) unsafe fn release_buffer(view: *mut pyo3::ffi::Py_buffer) {
    // SAFETY: `internal` holds the layout box `fill_buffer` leaked, of
    // `2 * ndim` entries.
    unsafe {
        let internal = (*view).internal as *mut isize;
        if !internal.is_null() {
            let len = 2 * (*view).ndim as usize;
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                internal, len,
            )));
            (*view).internal = std::ptr::null_mut();
        }
    }
}
