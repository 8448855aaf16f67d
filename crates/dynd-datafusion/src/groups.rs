//! Many groups at once: a state per group in one vector, stepped row by row
//! from the group indices DataFusion computes (its `GroupsAccumulator`), for
//! the reductions of `Float64` values whose state is a few numbers.

use std::sync::Arc;

use datafusion::arrow::array::{Array as _, ArrayRef, AsArray, BooleanArray, Float64Array};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use dynd::func::Accumulator as DyndAccumulator;

use crate::state::State;

/// A reduction of `f64` values by a small state: what a group holds.
pub(crate) trait Kernel: Send + Sync + 'static {
    /// A group's state.
    type S: Copy + Send + Sync + 'static;
    /// The state of no values.
    fn init(&self) -> Self::S;
    /// One more value.
    fn step(&self, s: Self::S, x: f64) -> Self::S;
    /// Two runs joined.
    fn combine(&self, a: Self::S, b: Self::S) -> Self::S;
    /// The result (`None`: NULL, for a group with no values).
    fn finish(&self, s: Self::S) -> Option<f64>;
    /// The states as the aggregate's state columns.
    fn write(&self, states: &[Self::S]) -> Result<Vec<ArrayRef>>;
    /// The state at row `i` of state columns (`None`: no values there).
    fn read(&self, columns: &[ArrayRef], i: usize) -> Result<Option<Self::S>>;
}

fn f64_column(columns: &[ArrayRef], k: usize) -> Result<&Float64Array> {
    columns
        .get(k)
        .and_then(|c| c.as_primitive_opt::<Float64Type>())
        .ok_or_else(|| DataFusionError::Internal(format!("state column {k} is not Float64")))
}

/// A sum: `(sum, any values)`; state `[partial]`, null for none.
pub(crate) struct Sum;

impl Kernel for Sum {
    type S = (f64, bool);
    fn init(&self) -> (f64, bool) {
        (0.0, false)
    }
    fn step(&self, (s, _): (f64, bool), x: f64) -> (f64, bool) {
        (s + x, true)
    }
    fn combine(&self, a: (f64, bool), b: (f64, bool)) -> (f64, bool) {
        (a.0 + b.0, a.1 || b.1)
    }
    fn finish(&self, (s, seen): (f64, bool)) -> Option<f64> {
        seen.then_some(s)
    }
    fn write(&self, states: &[(f64, bool)]) -> Result<Vec<ArrayRef>> {
        let a: Float64Array = states.iter().map(|&(s, seen)| seen.then_some(s)).collect();
        Ok(vec![Arc::new(a)])
    }
    fn read(&self, columns: &[ArrayRef], i: usize) -> Result<Option<(f64, bool)>> {
        let c = f64_column(columns, 0)?;
        Ok(c.is_valid(i).then(|| (c.value(i), true)))
    }
}

/// A mean: `(sum, count)`; state `[sum, count]`.
pub(crate) struct Mean;

impl Kernel for Mean {
    type S = (f64, f64);
    fn init(&self) -> (f64, f64) {
        (0.0, 0.0)
    }
    fn step(&self, (s, n): (f64, f64), x: f64) -> (f64, f64) {
        (s + x, n + 1.0)
    }
    fn combine(&self, a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        (a.0 + b.0, a.1 + b.1)
    }
    fn finish(&self, (s, n): (f64, f64)) -> Option<f64> {
        (n > 0.0).then(|| s / n)
    }
    fn write(&self, states: &[(f64, f64)]) -> Result<Vec<ArrayRef>> {
        let s: Float64Array = states
            .iter()
            .map(|&(s, n)| (n > 0.0).then_some(s))
            .collect();
        let n: Float64Array = states.iter().map(|&(_, n)| Some(n)).collect();
        Ok(vec![Arc::new(s), Arc::new(n)])
    }
    fn read(&self, columns: &[ArrayRef], i: usize) -> Result<Option<(f64, f64)>> {
        let (s, n) = (f64_column(columns, 0)?, f64_column(columns, 1)?);
        if n.is_null(i) || n.value(i) == 0.0 || s.is_null(i) {
            return Ok(None);
        }
        Ok(Some((s.value(i), n.value(i))))
    }
}

/// Variance or standard deviation (`ddof = 0`): Welford's running mean and
/// squared deviations per value, Chan, Golub and LeVeque's join of runs;
/// state `[count, mean, m2]`.
pub(crate) struct Moments {
    pub(crate) sqrt: bool,
}

impl Kernel for Moments {
    type S = (f64, f64, f64);
    fn init(&self) -> (f64, f64, f64) {
        (0.0, 0.0, 0.0)
    }
    fn step(&self, (n, mean, m2): (f64, f64, f64), x: f64) -> (f64, f64, f64) {
        let n = n + 1.0;
        let d = x - mean;
        let mean = mean + d / n;
        (n, mean, m2 + d * (x - mean))
    }
    fn combine(&self, a: (f64, f64, f64), b: (f64, f64, f64)) -> (f64, f64, f64) {
        if b.0 == 0.0 {
            return a;
        }
        if a.0 == 0.0 {
            return b;
        }
        let n = a.0 + b.0;
        let d = b.1 - a.1;
        (n, a.1 + d * b.0 / n, a.2 + b.2 + d * d * a.0 * b.0 / n)
    }
    fn finish(&self, (n, _, m2): (f64, f64, f64)) -> Option<f64> {
        (n > 0.0).then(|| {
            let var = m2 / n;
            if self.sqrt {
                var.sqrt()
            } else {
                var
            }
        })
    }
    fn write(&self, states: &[(f64, f64, f64)]) -> Result<Vec<ArrayRef>> {
        let col = |f: fn(&(f64, f64, f64)) -> f64| -> ArrayRef {
            Arc::new(states.iter().map(|s| Some(f(s))).collect::<Float64Array>())
        };
        Ok(vec![col(|s| s.0), col(|s| s.1), col(|s| s.2)])
    }
    fn read(&self, columns: &[ArrayRef], i: usize) -> Result<Option<(f64, f64, f64)>> {
        let (n, m, m2) = (
            f64_column(columns, 0)?,
            f64_column(columns, 1)?,
            f64_column(columns, 2)?,
        );
        if n.is_null(i) || n.value(i) == 0.0 {
            return Ok(None);
        }
        Ok(Some((n.value(i), m.value(i), m2.value(i))))
    }
}

/// A dynd stateful reduction (init, step, combine, finish); state its
/// [`State`] columns and a `seen` flag.
pub(crate) struct Dynd<A>(pub(crate) Arc<A>);

impl<A> Kernel for Dynd<A>
where
    A: DyndAccumulator<f64> + 'static,
    A::State: State,
    A::Output: Into<f64>,
{
    type S = (A::State, bool);
    fn init(&self) -> Self::S {
        (self.0.init(), false)
    }
    fn step(&self, (s, _): Self::S, x: f64) -> Self::S {
        (self.0.step(s, x), true)
    }
    fn combine(&self, a: Self::S, b: Self::S) -> Self::S {
        (self.0.combine(a.0, b.0), a.1 || b.1)
    }
    fn finish(&self, (s, seen): Self::S) -> Option<f64> {
        seen.then(|| self.0.finish(s).into())
    }
    fn write(&self, states: &[Self::S]) -> Result<Vec<ArrayRef>> {
        let k = <A::State as State>::data_types().len();
        let mut fields: Vec<Vec<ScalarValue>> = vec![Vec::with_capacity(states.len()); k];
        for (s, _) in states {
            for (f, v) in fields.iter_mut().zip(s.to_scalars()) {
                f.push(v);
            }
        }
        let mut out = fields
            .into_iter()
            .map(ScalarValue::iter_to_array)
            .collect::<Result<Vec<_>>>()?;
        out.push(Arc::new(
            states.iter().map(|s| Some(s.1)).collect::<BooleanArray>(),
        ));
        Ok(out)
    }
    fn read(&self, columns: &[ArrayRef], i: usize) -> Result<Option<Self::S>> {
        let k = <A::State as State>::data_types().len();
        let seen = columns
            .get(k)
            .and_then(|c| c.as_boolean_opt())
            .ok_or_else(|| DataFusionError::Internal("no 'seen' state column".into()))?;
        if seen.is_null(i) || !seen.value(i) {
            return Ok(None);
        }
        Ok(Some((<A::State as State>::read(columns, i)?, true)))
    }
}

/// The states of every group, stepped from DataFusion's group indices.
pub(crate) struct Groups<K: Kernel> {
    kernel: K,
    states: Vec<K::S>,
}

impl<K: Kernel> Groups<K> {
    pub(crate) fn new(kernel: K) -> Self {
        Groups {
            kernel,
            states: Vec::new(),
        }
    }

    fn grow(&mut self, total: usize) {
        if self.states.len() < total {
            let init = self.kernel.init();
            self.states.resize(total, init);
        }
    }
}

/// The values as `f64` and which rows count (valid and passing the filter).
fn rows(
    values: &[ArrayRef],
    filter: Option<&BooleanArray>,
) -> Result<(ArrayRef, Option<NullBuffer>)> {
    let v = values
        .first()
        .ok_or_else(|| DataFusionError::Internal("an aggregate with no argument".into()))?;
    let v = cast(v, &DataType::Float64)?;
    let mut keep = v.logical_nulls();
    if let Some(f) = filter {
        // A null or false filter value drops the row.
        let pass = NullBuffer::new(f.values().clone());
        let pass = NullBuffer::union(Some(&pass), f.nulls());
        keep = NullBuffer::union(keep.as_ref(), pass.as_ref());
    }
    Ok((v, keep))
}

impl<K: Kernel> GroupsAccumulator for Groups<K> {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let (v, keep) = rows(values, opt_filter)?;
        let v = v.as_primitive::<Float64Type>().values();
        let k = &self.kernel;
        let states = &mut self.states;
        let bad = || DataFusionError::Internal("a group index past the groups".into());
        match keep.filter(|n| n.null_count() > 0) {
            None => {
                for (&g, &x) in group_indices.iter().zip(v.iter()) {
                    let s = states.get_mut(g).ok_or_else(bad)?;
                    *s = k.step(*s, x);
                }
            }
            Some(keep) => {
                for ((&g, &x), ok) in group_indices.iter().zip(v.iter()).zip(keep.iter()) {
                    if ok {
                        let s = states.get_mut(g).ok_or_else(bad)?;
                        *s = k.step(*s, x);
                    }
                }
            }
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let states = emit_to.take_needed(&mut self.states);
        let out: Float64Array = states.iter().map(|s| self.kernel.finish(*s)).collect();
        Ok(Arc::new(out))
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let states = emit_to.take_needed(&mut self.states);
        self.kernel.write(&states)
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        for (i, &g) in group_indices.iter().enumerate() {
            if let Some(s) = self.kernel.read(values, i)? {
                let t = self.states.get_mut(g).ok_or_else(|| {
                    DataFusionError::Internal("a group index past the groups".into())
                })?;
                *t = self.kernel.combine(*t, s);
            }
        }
        Ok(())
    }

    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let (v, keep) = rows(values, opt_filter)?;
        let v = v.as_primitive::<Float64Type>().values();
        let init = self.kernel.init();
        let states: Vec<K::S> = match keep {
            None => v.iter().map(|&x| self.kernel.step(init, x)).collect(),
            Some(keep) => v
                .iter()
                .zip(keep.iter())
                .map(|(&x, ok)| if ok { self.kernel.step(init, x) } else { init })
                .collect(),
        };
        self.kernel.write(&states)
    }

    fn size(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<K::S>() + std::mem::size_of::<Self>()
    }
}
