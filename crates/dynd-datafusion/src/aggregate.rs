//! Aggregate UDFs: dynd reductions over the rows of a group, in partial
//! states that merge across partitions and machines.

use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::Arc;

use datafusion::arrow::array::{Array as _, ArrayRef, AsArray, BooleanArray};
use datafusion::arrow::compute::{cast, filter};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type};
use datafusion::common::{plan_datafusion_err, DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::format_state_name;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, GroupsAccumulator, Signature, Volatility,
};
use dynd::func::{builtins, Accumulator as DyndAccumulator, Callable, KahanSum, ReductionKind};
use dynd::nd::{Array, ToArrow};

use crate::groups;
use crate::scalar::sql_name;
use crate::state::State;
use crate::types::{coerce, data_type, exec, plan, sample};

/// How partial results of a reduction combine.
#[derive(Debug)]
enum Plan {
    /// A batch's partial is the reduction of it; partials combine with
    /// `combine` over them (the reduction itself for `min`, `max`, `all`,
    /// `any`, `NAME.reduce`, `sum`, `prod`; `sum` for `count`).
    Fold {
        reduce: Callable,
        combine: Callable,
        /// `count`: no rows give 0, not NULL, and NA is counted, not dropped.
        counts: bool,
    },
    /// `mean`: the sum and the count of the values.
    Mean { sum: Callable, count: Callable },
    /// `var` and `std` (dynd's: `ddof = 0`): count, mean and the sum of
    /// squared deviations, combined by Chan, Golub and LeVeque's formula.
    Moments {
        mean: Callable,
        var: Callable,
        count: Callable,
        sqrt: bool,
    },
    /// A stateful reduction over `Float64` values (init, step, combine,
    /// finish): `kahan_sum`, or a user's (see [`accumulator_udaf`]).
    Stateful(Arc<dyn ErasedStateful>),
}

/// A dynd reduction as a DataFusion aggregate UDF (see [`aggregate_udf`]
/// and [`accumulator_udaf`]).
#[derive(Debug)]
pub struct DyndAggregate {
    name: String,
    aliases: Vec<String>,
    plan: Arc<Plan>,
    signature: Signature,
}

impl PartialEq for DyndAggregate {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.plan, &other.plan)
    }
}

impl Eq for DyndAggregate {}

impl Hash for DyndAggregate {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl DyndAggregate {
    /// The aggregate under another name, and other names too
    /// (`kahan_sum` and `dynd_kahan_sum`).
    pub(crate) fn named(mut self, name: String, aliases: Vec<String>) -> Self {
        self.name = name;
        self.aliases = aliases;
        self
    }
}

/// A DataFusion aggregate of the dynd reduction `r`, named as `r` (with
/// `.` as `_`: `add.reduce` is `add_reduce`): `sum`, `prod`, `min`, `max`,
/// `all`, `any`, `count`, `mean`, `var`, `std` (dynd's: population, `ddof
/// = 0`), `kahan_sum`, and any associative `NAME.reduce`. Each batch of a
/// group is reduced by dynd; the partial results are the aggregate's state
/// (`mean`: sum and count; `var`/`std`: count, mean and squared
/// deviations; `kahan_sum`: sum and compensation), so partial aggregates
/// from partitions and machines merge. As SQL aggregates do, nulls are
/// skipped and a group with no values gives NULL (`count`: 0). A list
/// column is reduced over all its values.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// use dynd::func::builtins;
///
/// let ctx = SessionContext::new();
/// ctx.register_udaf(dynd_datafusion::aggregate_udf(&builtins::get("kahan_sum")?)?);
/// let df = ctx.sql("SELECT kahan_sum(x) FROM (VALUES (1.0), (1e100), (1.0), (-1e100)) AS t(x)").await?;
/// let batches = df.collect().await?;
/// let s = batches[0].column(0).as_any().downcast_ref::<datafusion::arrow::array::Float64Array>().unwrap();
/// assert_eq!(s.value(0), 2.0);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// A planning error for a callable that is not a reduction, or whose
/// partial results have no known way to combine.
pub fn aggregate_udf(r: &Callable) -> Result<AggregateUDF> {
    Ok(AggregateUDF::new_from_impl(aggregate_impl(r)?))
}

pub(crate) fn aggregate_impl(r: &Callable) -> Result<DyndAggregate> {
    let plan = match (r.reduction_kind(), r.name()) {
        (ReductionKind::Combines, _) => Plan::Fold {
            reduce: r.clone(),
            combine: r.clone(),
            counts: false,
        },
        (ReductionKind::Counts, _) => Plan::Fold {
            reduce: r.clone(),
            combine: builtins::SUM.callable().clone(),
            counts: true,
        },
        (_, "sum" | "prod") => Plan::Fold {
            reduce: r.clone(),
            combine: r.clone(),
            counts: false,
        },
        (_, "mean") => Plan::Mean {
            sum: builtins::SUM.callable().clone(),
            count: builtins::COUNT.callable().clone(),
        },
        (_, "var" | "std") => Plan::Moments {
            mean: builtins::MEAN.callable().clone(),
            var: builtins::VAR.callable().clone(),
            count: builtins::COUNT.callable().clone(),
            sqrt: r.name() == "std",
        },
        (_, "kahan_sum") => Plan::Stateful(Arc::new(Stateful::<KahanSum> {
            name: "kahan_sum".into(),
            acc: Arc::new(KahanSum),
        })),
        (ReductionKind::None, _) => {
            return Err(plan_datafusion_err!(
                "dynd function '{}' is not a reduction, so it cannot be an aggregate",
                r.name()
            ))
        }
        _ => {
            return Err(plan_datafusion_err!(
                "dynd reduction '{}' has no known way to combine partial results, so it cannot be an aggregate",
                r.name()
            ))
        }
    };
    Ok(DyndAggregate {
        name: sql_name(r.name()),
        aliases: Vec::new(),
        plan: Arc::new(plan),
        signature: Signature::user_defined(Volatility::Immutable),
    })
}

/// A DataFusion aggregate named `name` from a dynd stateful reduction
/// over `Float64` values (numbers of other types are cast to it): `init`,
/// `step` each value, `combine` partial states (across batches,
/// partitions and machines), `finish`. The state is carried between
/// partitions as the columns [`State`] names.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// use dynd::func::Accumulator;
///
/// /// The largest absolute value.
/// #[derive(Debug)]
/// struct MaxAbs;
/// impl Accumulator<f64> for MaxAbs {
///     type State = f64;
///     type Output = f64;
///     fn init(&self) -> f64 { 0.0 }
///     fn step(&self, s: f64, x: f64) -> f64 { s.max(x.abs()) }
///     fn combine(&self, a: f64, b: f64) -> f64 { a.max(b) }
///     fn finish(&self, s: f64) -> f64 { s }
/// }
///
/// let ctx = SessionContext::new();
/// ctx.register_udaf(dynd_datafusion::accumulator_udaf("max_abs", MaxAbs));
/// let df = ctx.sql("SELECT max_abs(x) FROM (VALUES (1.0), (-7.0), (3)) AS t(x)").await?;
/// let batches = df.collect().await?;
/// let m = batches[0].column(0).as_any().downcast_ref::<datafusion::arrow::array::Float64Array>().unwrap();
/// assert_eq!(m.value(0), 7.0);
/// # Ok(())
/// # }
/// ```
pub fn accumulator_udaf<A>(name: &str, acc: A) -> AggregateUDF
where
    A: DyndAccumulator<f64> + Debug + 'static,
    A::State: State,
    A::Output: Into<f64>,
{
    AggregateUDF::new_from_impl(DyndAggregate {
        name: name.to_string(),
        aliases: Vec::new(),
        plan: Arc::new(Plan::Stateful(Arc::new(Stateful {
            name: name.to_string(),
            acc: Arc::new(acc),
        }))),
        signature: Signature::user_defined(Volatility::Immutable),
    })
}

/// A stateful reduction with its types erased.
trait ErasedStateful: Send + Sync + Debug {
    fn state_types(&self) -> Vec<DataType>;
    fn accumulator(&self) -> Box<dyn Accumulator>;
    fn groups(&self) -> Box<dyn GroupsAccumulator>;
}

struct Stateful<A> {
    name: String,
    acc: Arc<A>,
}

impl<A> Debug for Stateful<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stateful")
            .field("name", &self.name)
            .finish()
    }
}

impl<A> ErasedStateful for Stateful<A>
where
    A: DyndAccumulator<f64> + Debug + 'static,
    A::State: State,
    A::Output: Into<f64>,
{
    fn state_types(&self) -> Vec<DataType> {
        let mut t = <A::State as State>::data_types();
        t.push(DataType::Boolean);
        t
    }

    fn groups(&self) -> Box<dyn GroupsAccumulator> {
        Box::new(groups::Groups::new(groups::Dynd(self.acc.clone())))
    }

    fn accumulator(&self) -> Box<dyn Accumulator> {
        Box::new(StatefulAcc {
            acc: self.acc.clone(),
            state: self.acc.init(),
            seen: false,
            _f: PhantomData,
        })
    }
}

struct StatefulAcc<A: DyndAccumulator<f64>> {
    acc: Arc<A>,
    state: A::State,
    /// Whether any value was stepped or merged (none: the result is NULL).
    seen: bool,
    _f: PhantomData<fn() -> A>,
}

impl<A: DyndAccumulator<f64> + Debug> Debug for StatefulAcc<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatefulAcc")
            .field("acc", &self.acc)
            .field("seen", &self.seen)
            .finish()
    }
}

impl<A> Accumulator for StatefulAcc<A>
where
    A: DyndAccumulator<f64> + Debug + 'static,
    A::State: State,
    A::Output: Into<f64>,
{
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(v) = values.first() else {
            return Ok(());
        };
        let v = cast(v, &DataType::Float64)?;
        let v = v.as_primitive::<Float64Type>();
        let mut s = self.acc.init();
        let mut any = false;
        match v.nulls().filter(|n| n.null_count() > 0) {
            None => {
                for &x in v.values().iter() {
                    s = self.acc.step(s, x);
                }
                any = !v.is_empty();
            }
            Some(nulls) => {
                for (x, ok) in v.values().iter().zip(nulls.iter()) {
                    if ok {
                        s = self.acc.step(s, *x);
                        any = true;
                    }
                }
            }
        }
        if any {
            self.state = self.acc.combine(self.state, s);
            self.seen = true;
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(
            self.seen.then(|| self.acc.finish(self.state).into()),
        ))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let mut s = self.state.to_scalars();
        s.push(ScalarValue::Boolean(Some(self.seen)));
        Ok(s)
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let k = <A::State as State>::data_types().len();
        let seen = states
            .get(k)
            .and_then(|c| c.as_boolean_opt())
            .ok_or_else(|| DataFusionError::Internal("no 'seen' state column".into()))?;
        for i in 0..seen.len() {
            if seen.is_valid(i) && seen.value(i) {
                let s = <A::State as State>::read(states, i)?;
                self.state = self.acc.combine(self.state, s);
                self.seen = true;
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// The builtin reductions

/// `a` without its nulls (a view when it has none).
fn drop_nulls(a: &ArrayRef) -> Result<ArrayRef> {
    match a.logical_nulls().filter(|n| n.null_count() > 0) {
        None => Ok(a.clone()),
        Some(n) => Ok(filter(a, &BooleanArray::from(n.inner().clone()))?),
    }
}

/// A 0-dimensional dynd result as a DataFusion scalar.
fn to_scalar(name: &str, a: &Array) -> Result<ScalarValue> {
    let one = a.expand_dims(0).map_err(|e| exec(name, e))?;
    let arrow = one.to_arrow().map_err(|e| exec(name, e))?;
    ScalarValue::try_from_array(&arrow, 0)
}

/// `f` over a column of scalars (partials), as a scalar.
fn fold_scalars(name: &str, f: &Callable, values: &ArrayRef) -> Result<Option<ScalarValue>> {
    let values = drop_nulls(values)?;
    if values.is_empty() {
        return Ok(None);
    }
    let d = Array::from_arrow(values.as_ref()).map_err(|e| exec(name, e))?;
    let r = f.call(&[&d]).map_err(|e| exec(name, e))?;
    Ok(Some(to_scalar(name, &r)?))
}

/// `f` over two partials.
fn fold_two(name: &str, f: &Callable, a: ScalarValue, b: ScalarValue) -> Result<ScalarValue> {
    let both = ScalarValue::iter_to_array([a, b])?;
    fold_scalars(name, f, &both)?
        .ok_or_else(|| DataFusionError::Internal("two partials folded to none".into()))
}

fn as_f64(v: &ScalarValue) -> Result<f64> {
    match v.cast_to(&DataType::Float64)? {
        ScalarValue::Float64(Some(x)) => Ok(x),
        other => Err(DataFusionError::Internal(format!(
            "a dynd partial result {other} is not a number"
        ))),
    }
}

/// The accumulator of a [`Plan`] other than [`Plan::Stateful`].
#[derive(Debug)]
struct BuiltinAcc {
    name: String,
    plan: Arc<Plan>,
    out: DataType,
    /// The type of `partial` in the state.
    partial_type: DataType,
    /// `Fold`: the partial; `Mean`: the sum.
    partial: Option<ScalarValue>,
    /// `Mean`, `Moments`: how many values.
    n: f64,
    /// `Moments`: their mean and sum of squared deviations.
    mean: f64,
    m2: f64,
}

impl BuiltinAcc {
    /// Folds a sum-like partial into `self.partial` with `f`.
    fn absorb(&mut self, f: &Callable, p: Option<ScalarValue>) -> Result<()> {
        self.partial = match (self.partial.take(), p) {
            (None, p) => p,
            (s, None) => s,
            (Some(s), Some(p)) => Some(fold_two(&self.name, f, s, p)?),
        };
        Ok(())
    }

    /// Chan, Golub and LeVeque: the moments of two runs joined.
    fn join_moments(&mut self, n: f64, mean: f64, m2: f64) {
        if n == 0.0 {
            return;
        }
        let total = self.n + n;
        let delta = mean - self.mean;
        self.mean += delta * n / total;
        self.m2 += m2 + delta * delta * self.n * n / total;
        self.n = total;
    }

    fn call0(&self, f: &Callable, a: &Array) -> Result<f64> {
        let r = f.call(&[a]).map_err(|e| exec(&self.name, e))?;
        as_f64(&to_scalar(&self.name, &r)?)
    }
}

impl Accumulator for BuiltinAcc {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let Some(v) = values.first() else {
            return Ok(());
        };
        let plan = self.plan.clone();
        match plan.as_ref() {
            Plan::Fold {
                reduce,
                combine,
                counts,
            } => {
                // `count` counts NA itself (`null_count` needs it).
                let v = if *counts { v.clone() } else { drop_nulls(v)? };
                let p = fold_scalars(&self.name, reduce, &v)?;
                self.absorb(combine, p)
            }
            Plan::Mean { sum, count } => {
                let v = drop_nulls(v)?;
                if v.is_empty() {
                    return Ok(());
                }
                let d = Array::from_arrow(v.as_ref()).map_err(|e| exec(&self.name, e))?;
                self.n += self.call0(count, &d)?;
                let s = sum.call(&[&d]).map_err(|e| exec(&self.name, e))?;
                let s = to_scalar(&self.name, &s)?;
                self.absorb(sum, Some(s))
            }
            Plan::Moments {
                mean, var, count, ..
            } => {
                let v = drop_nulls(v)?;
                if v.is_empty() {
                    return Ok(());
                }
                let d = Array::from_arrow(v.as_ref()).map_err(|e| exec(&self.name, e))?;
                let n = self.call0(count, &d)?;
                if n == 0.0 {
                    return Ok(());
                }
                let m = self.call0(mean, &d)?;
                let m2 = self.call0(var, &d)? * n;
                self.join_moments(n, m, m2);
                Ok(())
            }
            Plan::Stateful(_) => Err(DataFusionError::Internal(
                "a stateful dynd aggregate in the builtin accumulator".into(),
            )),
        }
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let v = match self.plan.as_ref() {
            Plan::Fold { counts: true, .. } => {
                self.partial.clone().unwrap_or(ScalarValue::Int64(Some(0)))
            }
            Plan::Fold { .. } => match &self.partial {
                Some(p) => p.clone(),
                None => ScalarValue::try_new_null(&self.out)?,
            },
            Plan::Mean { .. } => match &self.partial {
                Some(s) if self.n > 0.0 => ScalarValue::Float64(Some(as_f64(s)? / self.n)),
                _ => ScalarValue::try_new_null(&self.out)?,
            },
            Plan::Moments { sqrt, .. } => {
                if self.n == 0.0 {
                    ScalarValue::try_new_null(&self.out)?
                } else {
                    let var = self.m2 / self.n;
                    ScalarValue::Float64(Some(if *sqrt { var.sqrt() } else { var }))
                }
            }
            Plan::Stateful(_) => ScalarValue::try_new_null(&self.out)?,
        };
        if v.data_type() == self.out {
            Ok(v)
        } else {
            v.cast_to(&self.out)
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.partial.as_ref().map_or(0, ScalarValue::size)
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(match self.plan.as_ref() {
            Plan::Fold { .. } => vec![self.partial_or_null()?],
            Plan::Mean { .. } => vec![self.partial_or_null()?, ScalarValue::Float64(Some(self.n))],
            Plan::Moments { .. } => vec![
                ScalarValue::Float64(Some(self.n)),
                ScalarValue::Float64(Some(self.mean)),
                ScalarValue::Float64(Some(self.m2)),
            ],
            Plan::Stateful(_) => Vec::new(),
        })
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let plan = self.plan.clone();
        let col = |i: usize| {
            states
                .get(i)
                .ok_or_else(|| DataFusionError::Internal(format!("no state column {i}")))
        };
        match plan.as_ref() {
            Plan::Fold { combine, .. } => {
                let p = fold_scalars(&self.name, combine, col(0)?)?;
                self.absorb(combine, p)
            }
            Plan::Mean { sum, .. } => {
                let p = fold_scalars(&self.name, sum, col(0)?)?;
                let n = cast(col(1)?, &DataType::Float64)?;
                let n = n.as_primitive::<Float64Type>();
                self.n += n.iter().flatten().sum::<f64>();
                self.absorb(sum, p)
            }
            Plan::Moments { .. } => {
                let read = |i: usize| -> Result<Vec<f64>> {
                    let c = cast(col(i)?, &DataType::Float64)?;
                    Ok(c.as_primitive::<Float64Type>()
                        .iter()
                        .map(|x| x.unwrap_or(0.0))
                        .collect())
                };
                let (n, mean, m2) = (read(0)?, read(1)?, read(2)?);
                for ((n, mean), m2) in n.into_iter().zip(mean).zip(m2) {
                    self.join_moments(n, mean, m2);
                }
                Ok(())
            }
            Plan::Stateful(_) => Ok(()),
        }
    }
}

impl BuiltinAcc {
    /// The partial as a state value (of the partial's column type).
    fn partial_or_null(&self) -> Result<ScalarValue> {
        let p = match &self.partial {
            Some(p) => p.clone(),
            None => return ScalarValue::try_new_null(&self.partial_type),
        };
        if p.data_type() == self.partial_type {
            Ok(p)
        } else {
            p.cast_to(&self.partial_type)
        }
    }
}

impl DyndAggregate {
    /// The result type for an argument of Arrow type `t` (and of the
    /// `sum` partial of a mean).
    fn result_type(&self, t: &DataType) -> Result<(DataType, DataType)> {
        let row = dynd::nd::arrow_interop::dynd_type(t, false)
            .map_err(|e| plan(&self.name, std::slice::from_ref(t), e))?;
        let one = sample(&row).map_err(|e| plan(&self.name, std::slice::from_ref(t), e))?;
        let run = |f: &Callable| -> Result<DataType> {
            let r = f
                .call(&[&one])
                .map_err(|e| plan(&self.name, std::slice::from_ref(t), e))?;
            Ok(data_type(r.dtype(), &self.name)?.0)
        };
        match self.plan.as_ref() {
            Plan::Fold { reduce, .. } => {
                let out = run(reduce)?;
                Ok((out.clone(), out))
            }
            Plan::Mean { sum, .. } => Ok((run(builtins::MEAN.callable())?, run(sum)?)),
            Plan::Moments { .. } => {
                let out = run(builtins::VAR.callable())?;
                Ok((out.clone(), out))
            }
            Plan::Stateful(_) => Ok((DataType::Float64, DataType::Float64)),
        }
    }
}

impl AggregateUDFImpl for DyndAggregate {
    fn name(&self) -> &str {
        &self.name
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [t] = arg_types else {
            return Err(plan(
                &self.name,
                arg_types,
                format!("an aggregate takes one argument, not {}", arg_types.len()),
            ));
        };
        let t = coerce(std::slice::from_ref(t)).remove(0);
        if let Plan::Stateful(_) = self.plan.as_ref() {
            if !t.is_numeric() {
                return Err(plan(
                    &self.name,
                    arg_types,
                    "a stateful reduction takes numbers (as Float64)",
                ));
            }
            return Ok(vec![DataType::Float64]);
        }
        self.result_type(&t)?;
        Ok(vec![t])
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let t = arg_types
            .first()
            .ok_or_else(|| plan(&self.name, arg_types, "no argument"))?;
        Ok(self.result_type(t)?.0)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        if let Plan::Stateful(s) = self.plan.as_ref() {
            return Ok(s.accumulator());
        }
        let input = args
            .expr_fields
            .first()
            .map(|f| f.data_type().clone())
            .unwrap_or(DataType::Float64);
        Ok(Box::new(BuiltinAcc {
            name: self.name.clone(),
            plan: self.plan.clone(),
            out: args.return_type().clone(),
            partial_type: self.result_type(&input)?.1,
            partial: None,
            n: 0.0,
            mean: 0.0,
            m2: 0.0,
        }))
    }

    /// Many groups step one vector of states (no accumulator per group)
    /// for the reductions of `Float64` values with a numeric state:
    /// `sum`, `mean`, `var`, `std`, `kahan_sum` and stateful reductions.
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        let float64 = args
            .expr_fields
            .first()
            .is_some_and(|f| f.data_type() == &DataType::Float64);
        match self.plan.as_ref() {
            Plan::Stateful(_) => !args.is_distinct,
            Plan::Mean { .. } | Plan::Moments { .. } => float64 && !args.is_distinct,
            Plan::Fold { reduce, .. } => float64 && !args.is_distinct && reduce.name() == "sum",
        }
    }

    fn create_groups_accumulator(
        &self,
        _args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(match self.plan.as_ref() {
            Plan::Stateful(s) => s.groups(),
            Plan::Mean { .. } => Box::new(groups::Groups::new(groups::Mean)),
            Plan::Moments { sqrt, .. } => {
                Box::new(groups::Groups::new(groups::Moments { sqrt: *sqrt }))
            }
            Plan::Fold { .. } => Box::new(groups::Groups::new(groups::Sum)),
        })
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let f = |name: &str, t: DataType| {
            Arc::new(Field::new(format_state_name(args.name, name), t, true))
        };
        let input = args
            .input_fields
            .first()
            .map(|f| f.data_type().clone())
            .unwrap_or(DataType::Float64);
        Ok(match self.plan.as_ref() {
            Plan::Fold { .. } => vec![f("partial", args.return_type().clone())],
            Plan::Mean { .. } => vec![
                f("sum", self.result_type(&input)?.1),
                f("count", DataType::Float64),
            ],
            Plan::Moments { .. } => vec![
                f("count", DataType::Float64),
                f("mean", DataType::Float64),
                f("m2", DataType::Float64),
            ],
            Plan::Stateful(s) => s
                .state_types()
                .into_iter()
                .enumerate()
                .map(|(i, t)| f(&format!("state{i}"), t))
                .collect(),
        })
    }
}
