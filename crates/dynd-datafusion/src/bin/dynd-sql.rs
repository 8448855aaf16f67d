//! `dynd-sql`: SQL over Parquet, CSV and Arrow IPC files in DataFusion, with
//! every dynd builtin registered (`dynd sql …` runs it).
//!
//! ```text
//! dynd-sql --table sessions=sessions.parquet \
//!   "SELECT user, row_mean(durations) AS mean FROM sessions ORDER BY mean DESC LIMIT 3"
//! ```

use std::process::ExitCode;

use clap::Parser;
use datafusion::arrow::json::ArrayWriter;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::{DataFusionError, Result};
use datafusion::prelude::{CsvReadOptions, ParquetReadOptions, SessionContext};

#[derive(Parser)]
#[command(
    name = "dynd-sql",
    version,
    about = "SQL over Parquet, CSV and Arrow IPC files, with dynd's functions (hypot, row_mean, kahan_sum, ...)"
)]
struct Cli {
    /// Print the result as JSON (an array of row objects) instead of a table.
    #[arg(long)]
    json: bool,
    /// A table: NAME=PATH, typed by DataFusion from a .parquet, .csv or
    /// .arrow/.ipc/.feather file (repeatable).
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// The query.
    query: String,
}

async fn run(cli: &Cli) -> Result<String> {
    let ctx = SessionContext::new();
    dynd_datafusion::register_all(&ctx)?;
    for t in &cli.tables {
        let (name, path) = t.split_once('=').ok_or_else(|| {
            DataFusionError::Configuration(format!("--table {t}: expected NAME=PATH"))
        })?;
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".parquet") {
            ctx.register_parquet(name, path, ParquetReadOptions::default())
                .await?;
        } else if lower.ends_with(".csv") {
            ctx.register_csv(name, path, CsvReadOptions::new()).await?;
        } else if [".arrow", ".ipc", ".feather"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            ctx.register_arrow(name, path, Default::default()).await?;
        } else {
            return Err(DataFusionError::Configuration(format!(
                "--table {t}: unknown file type (expected .parquet, .csv, .arrow, .ipc or .feather)"
            )));
        }
    }
    let batches = ctx.sql(&cli.query).await?.collect().await?;
    if cli.json {
        let mut w = ArrayWriter::new(Vec::new());
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

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli).await {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
