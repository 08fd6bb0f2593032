//! numpy in: shapes, dtypes and index checks, and the one rule for copies.
//!
//! A batch of `N` points is an `(N, 3)` array. Native float32 C-contiguous
//! arrays are read where they lie (read-only views and memory maps
//! included); float64 and strided arrays are read through their strides,
//! float64 rounded to float32 on the way, a block at a time into a small
//! staging buffer ([`crate::batch::BLOCK`] rows), so a batch never copies its
//! whole input. Integer and other float dtypes are converted once by
//! numpy to float64, and lists and other array-likes go through
//! `numpy.asarray` once.

use std::ops::Range;

use boxtree::Point;
use numpy::ndarray::ArrayView2;
use numpy::{
    PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::{MeshError, array_error};

/// `obj` as a numpy array: itself when it is one, else `numpy.asarray(obj)`.
///
/// An array whose strides are not whole items (a field of a packed record,
/// such as `x, y, z` beside three colour bytes) is copied once: the numpy
/// crate's views divide byte strides by the item size, and such a view
/// read other bytes than the caller's (a tetrahedron's vertices came back
/// as 5.8e-39 and 2.3e-41). So is one numpy calls unaligned (a buffer read
/// from an odd offset): Rust may not read its items in place.
pub(crate) fn ndarray<'py>(
    obj: &Bound<'py, PyAny>,
    name: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let numpy = || obj.py().import("numpy");
    let array = match obj.cast::<PyUntypedArray>() {
        Ok(array) => array.clone(),
        Err(_) => numpy()?
            .call_method1("asarray", (obj,))
            .map_err(|e| array_error(format!("{name} is not an array of numbers: {e}")))?
            .cast_into::<PyUntypedArray>()?,
    };
    let item = array.dtype().itemsize() as isize;
    let aligned = array
        .getattr("flags")?
        .getattr("aligned")?
        .extract::<bool>()?;
    if !aligned || (item > 0 && array.strides().iter().any(|stride| stride % item != 0)) {
        // A copy in any case: `ascontiguousarray` returns an unaligned but
        // contiguous array as it is.
        return Ok(array
            .call_method1("copy", ("C",))?
            .cast_into::<PyUntypedArray>()?);
    }
    Ok(array)
}

/// The shape as numpy prints it, for messages.
fn shape_text(array: &Bound<'_, PyUntypedArray>) -> String {
    match array.shape() {
        [n] => format!("({n},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Floats to read: native float32 or float64, kept as numpy holds them.
enum Floats<'py> {
    F32(PyReadonlyArray2<'py, f32>),
    F64(PyReadonlyArray2<'py, f64>),
}

/// A 2-D array as floats: float32 and float64 as they are, integers and
/// other floats converted once by numpy to float64, anything else refused.
fn floats<'py>(array: &Bound<'py, PyUntypedArray>, name: &str) -> PyResult<Floats<'py>> {
    let py = array.py();
    let dtype = array.dtype();
    if dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
        let typed = array.cast::<PyArray2<f32>>()?;
        return Ok(Floats::F32(typed.try_readonly().map_err(busy(name))?));
    }
    if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
        let typed = array.cast::<PyArray2<f64>>()?;
        return Ok(Floats::F64(typed.try_readonly().map_err(busy(name))?));
    }
    numeric(array, name)?;
    let converted = array.call_method1("astype", (numpy::dtype::<f64>(py),))?;
    let typed = converted.cast_into::<PyArray2<f64>>()?;
    Ok(Floats::F64(typed.try_readonly().map_err(busy(name))?))
}

/// A `TypeError` unless the array holds floats or integers.
pub(crate) fn numeric(array: &Bound<'_, PyUntypedArray>, name: &str) -> PyResult<()> {
    let dtype = array.dtype();
    if matches!(dtype.kind(), b'f' | b'i' | b'u') {
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "{name} must hold real numbers (float32 is read in place); got dtype {}",
        dtype.str()?
    )))
}

/// The error for an array that Rust code is writing elsewhere.
pub(crate) fn busy(name: &str) -> impl FnOnce(numpy::BorrowError) -> PyErr + '_ {
    move |e| array_error(format!("{name} cannot be read now: {e}"))
}

/// `N` rows of three coordinates, borrowed from numpy for the call.
pub(crate) struct Rows<'py>(Floats<'py>);

/// A batch of points as numpy has it, to read from any thread.
#[derive(Clone, Copy)]
pub(crate) enum RowsView<'a> {
    /// Native float32, C-contiguous and aligned: read in place.
    InPlace(&'a [Point]),
    /// Float32 with other strides.
    F32(ArrayView2<'a, f32>),
    /// Float64, rounded to float32 as it is read.
    F64(ArrayView2<'a, f64>),
}

/// `obj` as an `(N, 3)` array of coordinates (`N` may be 0).
pub(crate) fn rows<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Rows<'py>> {
    let array = ndarray(obj, name)?;
    rows_of(&array, name)
}

/// `array` as an `(N, 3)` array of coordinates.
pub(crate) fn rows_of<'py>(array: &Bound<'py, PyUntypedArray>, name: &str) -> PyResult<Rows<'py>> {
    numeric(array, name)?;
    if array.ndim() != 2 || array.shape()[1] != 3 {
        return Err(array_error(format!(
            "{name} must have shape (N, 3); got {}",
            shape_text(array)
        )));
    }
    room_for_answers(array.shape()[0], name)?;
    Ok(Rows(floats(array, name)?))
}

/// Bytes a batch's answer columns take per row, at most (a closest hit's
/// `t`, triangle, weights, normal, face and object).
const ANSWER_BYTES_PER_ROW: usize = 64;

/// A `MemoryError` when the answers to `rows` rows cannot be allocated,
/// asked before the batch starts: a failed allocation inside it would
/// abort the interpreter (a broadcast array of 400 million rows takes
/// almost no memory itself). The trial allocation is freed at once.
pub(crate) fn room_for_answers(rows: usize, name: &str) -> PyResult<()> {
    let mut trial: Vec<u8> = Vec::new();
    rows.checked_mul(ANSWER_BYTES_PER_ROW)
        .and_then(|bytes| trial.try_reserve_exact(bytes).ok())
        .ok_or_else(|| {
            pyo3::exceptions::PyMemoryError::new_err(format!(
                "{name}: no memory for the answers to {rows} rows"
            ))
        })
}

/// `obj` as one point: a sequence or array of three numbers.
pub(crate) fn point(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Point> {
    let array = ndarray(obj, name)?;
    point_of(&array, name)
}

/// `array` as one point: shape `(3,)`.
pub(crate) fn point_of(array: &Bound<'_, PyUntypedArray>, name: &str) -> PyResult<Point> {
    if array.shape() != [3] {
        return Err(array_error(format!(
            "{name} must have shape (3,); got {}",
            shape_text(array)
        )));
    }
    let as_row = array.call_method1("reshape", (1, 3))?;
    let rows = rows_of(as_row.cast::<PyUntypedArray>()?, name)?;
    Ok(rows.view().point(0))
}

impl Rows<'_> {
    /// The rows, to read with the GIL released.
    pub(crate) fn view(&self) -> RowsView<'_> {
        match &self.0 {
            Floats::F32(array) => {
                // `as_slice` also accepts Fortran order: rows need C order.
                let flat = array
                    .is_c_contiguous()
                    .then(|| array.as_slice().ok())
                    .flatten();
                match flat.and_then(|f| bytemuck::try_cast_slice::<f32, Point>(f).ok()) {
                    Some(points) => RowsView::InPlace(points),
                    None => RowsView::F32(array.as_array()),
                }
            }
            Floats::F64(array) => RowsView::F64(array.as_array()),
        }
    }
}

impl<'a> RowsView<'a> {
    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        match self {
            RowsView::InPlace(points) => points.len(),
            RowsView::F32(view) => view.nrows(),
            RowsView::F64(view) => view.nrows(),
        }
    }

    /// Row `i` as a point.
    #[inline]
    pub(crate) fn point(&self, i: usize) -> Point {
        match self {
            RowsView::InPlace(points) => points[i],
            RowsView::F32(view) => Point::new(view[[i, 0]], view[[i, 1]], view[[i, 2]]),
            RowsView::F64(view) => Point::new(
                view[[i, 0]] as f32,
                view[[i, 1]] as f32,
                view[[i, 2]] as f32,
            ),
        }
    }

    /// Rows `range` as points: in place when the array allows it, else
    /// gathered into `staging`.
    pub(crate) fn points<'s>(
        &'s self,
        range: Range<usize>,
        staging: &'s mut Vec<Point>,
    ) -> &'s [Point]
    where
        'a: 's,
    {
        if let RowsView::InPlace(points) = self {
            return &points[range];
        }
        staging.clear();
        staging.extend(range.map(|i| self.point(i)));
        staging
    }
}

/// Two batches that must have one row each per query.
pub(crate) fn same_length(
    a: &RowsView<'_>,
    a_name: &str,
    b: &RowsView<'_>,
    b_name: &str,
) -> PyResult<()> {
    if a.len() == b.len() {
        Ok(())
    } else {
        Err(array_error(format!(
            "{a_name} and {b_name} must have the same number of rows; got {} and {}",
            a.len(),
            b.len()
        )))
    }
}

/// A query argument: one point (shape `(3,)`) or a batch (shape `(N, 3)`).
pub(crate) enum OneOrMany<'py> {
    One(Point),
    Many(Rows<'py>),
}

/// `obj` as one point or a batch of points, by its number of dimensions.
pub(crate) fn one_or_many<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<OneOrMany<'py>> {
    let array = ndarray(obj, name)?;
    if array.ndim() == 1 {
        Ok(OneOrMany::One(point_of(&array, name)?))
    } else {
        Ok(OneOrMany::Many(rows_of(&array, name)?))
    }
}

/// Two query arguments that go together (origins and ends): both single
/// points or both batches of the same length.
pub(crate) enum Pairs<'py> {
    One(Point, Point),
    Many(Rows<'py>, Rows<'py>),
}

/// `a` and `b` as one pair of points or as two batches of one length.
pub(crate) fn pairs<'py>(
    a: &Bound<'py, PyAny>,
    a_name: &str,
    b: &Bound<'py, PyAny>,
    b_name: &str,
) -> PyResult<Pairs<'py>> {
    match (one_or_many(a, a_name)?, one_or_many(b, b_name)?) {
        (OneOrMany::One(a), OneOrMany::One(b)) => Ok(Pairs::One(a, b)),
        (OneOrMany::Many(a), OneOrMany::Many(b)) => {
            same_length(&a.view(), a_name, &b.view(), b_name)?;
            Ok(Pairs::Many(a, b))
        }
        _ => Err(array_error(format!(
            "{a_name} and {b_name} must both be single points (3,) or both batches (N, 3)"
        ))),
    }
}

/// The index triples of an `(F, 3)` integer array, each checked against
/// the vertex count, so that the error names the first bad triangle
/// whatever is wrong with its index (negative, too large, past 32 bits).
pub(crate) fn faces(obj: &Bound<'_, PyAny>, vertex_count: usize) -> PyResult<Vec<[u32; 3]>> {
    let array = ndarray(obj, "faces")?;
    if array.ndim() != 2 || array.shape()[1] != 3 {
        return Err(array_error(format!(
            "faces must have shape (F, 3); got {}",
            shape_text(&array)
        )));
    }
    let py = array.py();
    let kind = array.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(PyTypeError::new_err(format!(
            "faces must hold integers; got dtype {}",
            array.dtype().str()?
        )));
    }
    // The first triangle with a bad index, in order, whatever is wrong
    // with it (negative, past the vertices, past 32 bits).
    let bad = |row: usize, index: &dyn std::fmt::Display| {
        MeshError::new_err(format!(
            "triangle {row} refers to vertex {index}, but the mesh has {vertex_count} vertices"
        ))
    };
    // Unsigned values above i64::MAX would wrap negative as int64: such
    // arrays are searched as u64 first (any index that fits u32 fits i64).
    if kind == b'u' {
        let big = array.call_method1("astype", (numpy::dtype::<u64>(py),))?;
        let past = big.call_method1("__ge__", (vertex_count as u64,))?;
        if past.call_method0("any")?.extract::<bool>()? {
            let row: usize = past
                .call_method1("any", (1,))?
                .call_method0("argmax")?
                .extract()?;
            let values: Vec<u64> = big.get_item(row)?.call_method0("tolist")?.extract()?;
            let index = values.iter().find(|&&v| v >= vertex_count as u64).copied();
            return Err(bad(row, &index.unwrap_or(0)));
        }
    }
    let wide = if array.dtype().is_equiv_to(&numpy::dtype::<i64>(py)) {
        array.clone().into_any()
    } else {
        array.call_method1("astype", (numpy::dtype::<i64>(py),))?
    };
    let wide = wide.cast_into::<PyArray2<i64>>()?;
    let readonly = wide.try_readonly().map_err(busy("faces"))?;
    let view = readonly.as_array();
    let mut out = Vec::with_capacity(view.nrows());
    for (row, face) in view.outer_iter().enumerate() {
        let mut triple = [0u32; 3];
        for (slot, &index) in triple.iter_mut().zip(face.iter()) {
            *slot = u32::try_from(index)
                .ok()
                .filter(|&i| (i as usize) < vertex_count)
                .ok_or_else(|| bad(row, &index))?;
        }
        out.push(triple);
    }
    Ok(out)
}

/// An int argument within `0..=largest`, or an error naming `name`: PyO3
/// names the argument in `TypeError`s only, and Python's own messages for
/// an int out of a Rust type's range ("out of range integral type
/// conversion attempted") name nothing.
fn bounded_int(obj: &Bound<'_, PyAny>, name: &str, largest: u64) -> PyResult<u64> {
    if obj.is_instance_of::<pyo3::types::PyBool>() || !obj.is_instance_of::<pyo3::types::PyInt>() {
        let kind = obj.get_type().name()?;
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{name} must be an int, not {kind}"
        )));
    }
    obj.extract::<u64>()
        .ok()
        .filter(|&v| v <= largest)
        .ok_or_else(|| {
            pyo3::exceptions::PyOverflowError::new_err(format!(
                "{name} must be an int from 0 to {largest}, not {obj}"
            ))
        })
}

/// A `layers` argument: a 32-bit layer mask.
pub(crate) fn layers_arg(obj: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(bounded_int(obj, "layers", u64::from(u32::MAX))? as u32)
}

/// A `group` argument: a 32-bit group, or None for no group.
pub(crate) fn group_arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    if obj.is_none() {
        return Ok(None);
    }
    Ok(Some(bounded_int(obj, "group", u64::from(u32::MAX))? as u32))
}

/// A `limit` argument: a row count, or None for every row.
pub(crate) fn limit_arg(obj: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if obj.is_none() {
        return Ok(None);
    }
    Ok(Some(bounded_int(obj, "limit", usize::MAX as u64)? as usize))
}

/// An `ignore` argument: a sequence of int ids (a str is not one), each
/// checked by the caller against what it names; errors name `ignore` and
/// the item.
pub(crate) fn ids_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>()
    {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "ignore must be a sequence of int ids, not a string",
        ));
    }
    let items = obj.try_iter().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "ignore must be a sequence of int ids, not {}",
            obj.get_type()
                .name()
                .map_or_else(|_| "that".to_string(), |n| n.to_string())
        ))
    })?;
    items
        .enumerate()
        .map(|(i, item)| {
            let item = item?;
            let bad = || {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "ignore item {i} must be an int id, not {item}"
                ))
            };
            if item.is_instance_of::<pyo3::types::PyBool>()
                || !item.is_instance_of::<pyo3::types::PyInt>()
            {
                return Err(bad());
            }
            item.extract::<i64>().map_err(|_| {
                pyo3::exceptions::PyOverflowError::new_err(format!(
                    "ignore item {i} is {item}, beyond any id"
                ))
            })
        })
        .collect()
}
