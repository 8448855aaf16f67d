//! The state of a stateful reduction as Arrow columns: one
//! [`StateValue`] (`f64`, `i64`, `u64`) or a tuple of them, read back row
//! by row when partitions merge. Shared by the plain and the grouped
//! accumulators.

use datafusion::arrow::array::{Array as _, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type, UInt64Type};
use datafusion::common::{DataFusionError, Result, ScalarValue};
/// One column of a stateful reduction's state: `f64`, `i64` or `u64`.
pub trait StateValue: Copy + Send + Sync + 'static {
    /// The Arrow type of the column.
    fn data_type() -> DataType;
    /// The value as a DataFusion scalar.
    fn to_scalar(self) -> ScalarValue;
    /// The value at row `i` of a column of [`StateValue::data_type`].
    ///
    /// # Errors
    ///
    /// An internal error if the column has another type or a null there.
    fn read(column: &ArrayRef, i: usize) -> Result<Self>;
}

fn bad_state(column: &ArrayRef, i: usize) -> DataFusionError {
    DataFusionError::Internal(format!(
        "a dynd aggregate's state column of type {} has no value at row {i}",
        column.data_type()
    ))
}

macro_rules! state_value {
    ($t:ty, $arrow:ty, $dt:expr, $variant:ident) => {
        impl StateValue for $t {
            fn data_type() -> DataType {
                $dt
            }
            fn to_scalar(self) -> ScalarValue {
                ScalarValue::$variant(Some(self))
            }
            fn read(column: &ArrayRef, i: usize) -> Result<Self> {
                let c = column
                    .as_primitive_opt::<$arrow>()
                    .ok_or_else(|| bad_state(column, i))?;
                if i >= c.len() || c.is_null(i) {
                    return Err(bad_state(column, i));
                }
                Ok(c.value(i))
            }
        }
    };
}

state_value!(f64, Float64Type, DataType::Float64, Float64);
state_value!(i64, Int64Type, DataType::Int64, Int64);
state_value!(u64, UInt64Type, DataType::UInt64, UInt64);

/// A stateful reduction's state as Arrow columns: one [`StateValue`] or a
/// tuple of up to four.
pub trait State: Copy + Send + Sync + 'static {
    /// The columns' types.
    fn data_types() -> Vec<DataType>;
    /// The values, one per column.
    fn to_scalars(self) -> Vec<ScalarValue>;
    /// The state at row `i` of the columns.
    ///
    /// # Errors
    ///
    /// As [`StateValue::read`].
    fn read(columns: &[ArrayRef], i: usize) -> Result<Self>;
}

impl<T: StateValue> State for T {
    fn data_types() -> Vec<DataType> {
        vec![T::data_type()]
    }
    fn to_scalars(self) -> Vec<ScalarValue> {
        vec![self.to_scalar()]
    }
    fn read(columns: &[ArrayRef], i: usize) -> Result<Self> {
        let c = columns
            .first()
            .ok_or_else(|| DataFusionError::Internal("no state column".into()))?;
        T::read(c, i)
    }
}

macro_rules! state_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: StateValue),+> State for ($($t,)+) {
            fn data_types() -> Vec<DataType> {
                vec![$($t::data_type()),+]
            }
            fn to_scalars(self) -> Vec<ScalarValue> {
                vec![$(self.$i.to_scalar()),+]
            }
            fn read(columns: &[ArrayRef], i: usize) -> Result<Self> {
                Ok(($(
                    $t::read(
                        columns.get($i).ok_or_else(|| {
                            DataFusionError::Internal(format!("no state column {}", $i))
                        })?,
                        i,
                    )?,
                )+))
            }
        }
    };
}

state_tuple!(A 0, B 1);
state_tuple!(A 0, B 1, C 2);
state_tuple!(A 0, B 1, C 2, D 3);
