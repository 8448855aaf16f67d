//! `dynd-sql`: SQL over Parquet, CSV and Arrow IPC files in DataFusion, with
//! every dynd builtin registered (`dynd sql …` runs it).
//!
//! ```text
//! dynd-sql --table sessions=sessions.parquet \
//!   "SELECT user, row_mean(durations) AS mean FROM sessions ORDER BY mean DESC LIMIT 3"
//! ```
//!
//! A malformed file is an error, never a crash: the query runs in a task
//! whose panic (inside DataFusion, Parquet or Arrow) comes back as an error
//! message, and the operators that buffer (sorts, joins, aggregates) share
//! a memory pool of `--memory-limit` bytes. JSON output writes a
//! non-finite float as the `dynd` tool does (`"NaN"`, `"Infinity"`,
//! `"-Infinity"`), so it stays apart from NULL.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches, Parser};
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, FieldRef, Float16Type, Float32Type, Float64Type};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::json::writer::{Encoder, EncoderFactory, EncoderOptions, NullableEncoder};
use datafusion::arrow::json::{ArrayWriter, WriterBuilder};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::{DataFusionError, Result};
use datafusion::prelude::SessionContext;

#[derive(Parser)]
#[command(
    name = "dynd-sql",
    version,
    about = "SQL over Parquet, CSV and Arrow IPC files, with dynd's functions (row_mean, kahan_sum, dynd_sqrt, ...; all listed below)"
)]
struct Cli {
    /// Print the result as JSON (an array of row objects) instead of a table.
    #[arg(long)]
    json: bool,
    /// A table: NAME=PATH, typed by DataFusion from a .parquet, .csv or
    /// .arrow/.ipc/.feather file (repeatable).
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// The most memory, in MiB, the query's buffering operators (sorts,
    /// joins, aggregates) may hold; past it they spill or fail with an
    /// error.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    memory_limit: usize,
    /// The query.
    query: String,
}

/// JSON for floats that keeps non-finite values apart from NULL: `"NaN"`,
/// `"Infinity"`, `"-Infinity"` (as `dynd --json` writes them and reads
/// them back), finite ones with a fraction or exponent (`1.0`, `1e300`).
#[derive(Debug)]
struct Floats;

struct FloatEncoder<'a>(&'a dyn Array);

impl Encoder for FloatEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        let a = self.0;
        let x = match a.data_type() {
            DataType::Float16 => f64::from(a.as_primitive::<Float16Type>().value(idx)),
            DataType::Float32 => f64::from(a.as_primitive::<Float32Type>().value(idx)),
            _ => a.as_primitive::<Float64Type>().value(idx),
        };
        let text = if x.is_nan() {
            "\"NaN\"".to_string()
        } else if x.is_infinite() {
            if x > 0.0 {
                "\"Infinity\""
            } else {
                "\"-Infinity\""
            }
            .to_string()
        } else if a.data_type() == &DataType::Float32 {
            // The float32's own shortest digits, not its float64 widening's.
            format!("{:?}", a.as_primitive::<Float32Type>().value(idx))
        } else {
            // Debug writes the shortest round-trip digits, always with a
            // fraction or an exponent.
            format!("{x:?}")
        };
        out.extend_from_slice(text.as_bytes());
    }
}

impl EncoderFactory for Floats {
    fn make_default_encoder<'a>(
        &self,
        _field: &'a FieldRef,
        array: &'a dyn Array,
        _options: &'a EncoderOptions,
    ) -> Result<Option<NullableEncoder<'a>>, ArrowError> {
        Ok(match array.data_type() {
            DataType::Float16 | DataType::Float32 | DataType::Float64 => Some(
                NullableEncoder::new(Box::new(FloatEncoder(array)), array.logical_nulls()),
            ),
            _ => None,
        })
    }
}

/// The function names `dynd-sql` registers, for `--help`.
fn registered_names() -> String {
    let ctx = SessionContext::new();
    match dynd_datafusion::register_all(&ctx) {
        Ok(r) => {
            let scalar: Vec<&str> = r.scalar.iter().map(String::as_str).collect();
            let aggregate: Vec<&str> = r.aggregate.iter().map(String::as_str).collect();
            format!(
                "dynd's scalar functions: {}\n\ndynd's aggregate functions: {}",
                scalar.join(", "),
                aggregate.join(", ")
            )
        }
        Err(e) => format!("(registering dynd's functions failed: {e})"),
    }
}

async fn run(cli: &Cli) -> Result<String> {
    let ctx = dynd_datafusion::files::session(cli.memory_limit.saturating_mul(1 << 20))?;
    for t in &cli.tables {
        let (name, path) = t.split_once('=').ok_or_else(|| {
            DataFusionError::Configuration(format!("--table {t}: expected NAME=PATH"))
        })?;
        dynd_datafusion::files::register_file(&ctx, name, path)
            .await
            .map_err(|e| match e {
                DataFusionError::Configuration(m) => {
                    DataFusionError::Configuration(format!("--table {t}: {m}"))
                }
                e => e,
            })?;
    }
    let batches = ctx.sql(&cli.query).await?.collect().await?;
    if cli.json {
        let mut w: ArrayWriter<Vec<u8>> = WriterBuilder::new()
            .with_encoder_factory(Arc::new(Floats))
            .build(Vec::new());
        let refs: Vec<_> = batches.iter().collect();
        w.write_batches(&refs)?;
        w.finish()?;
        let bytes = w.into_inner();
        // An empty result is `[]`, not nothing.
        return Ok(if bytes.is_empty() {
            "[]".into()
        } else {
            String::from_utf8_lossy(&bytes).into_owned()
        });
    }
    Ok(pretty_format_batches(&batches)?.to_string())
}

/// Prints `text` and a newline; a closed pipe ends the tool quietly.
fn emit(text: &str) -> ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The text of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

#[tokio::main]
async fn main() -> ExitCode {
    // The function list costs a session of its own: only for `--help`.
    let help = std::env::args().skip(1).any(|a| a == "--help" || a == "-h");
    let command = Cli::command();
    let command = if help {
        command.after_help(registered_names())
    } else {
        command
    };
    let matches = command.get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // A panic inside a dependency (a malformed file's footer) is reported
    // as the query's error, once, below: the default hook would print it
    // as a crash first.
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = tokio::spawn(async move { run(&cli).await }).await;
    match outcome {
        Ok(Ok(text)) => emit(&text),
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
        Err(e) if e.is_panic() => {
            eprintln!(
                "error: the query failed inside DataFusion or a file reader (it panicked: {}); \
                 the input is likely malformed",
                panic_text(&*e.into_panic())
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: the query was cancelled: {e}");
            ExitCode::FAILURE
        }
    }
}
