//! Writes an example dataset for `dynd-sql`: per-user days of sessions, a
//! Parquet file with a `List<Float64>` column of session durations.
//!
//! ```text
//! cargo run --release --example sessions -- sessions.parquet [ROWS]
//! ```
//!
//! Columns: `user` (Int64, 1000 users), `region` (Utf8), `day` (Int32) and
//! `durations` (List<Float64>, 0–19 sessions of 1–120 minutes, skewed
//! short). Seeded: the same file every time.

use std::fs::File;
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Float64Array, Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::parquet::arrow::ArrowWriter;

#[path = "support/lcg.rs"]
mod lcg;
use lcg::Lcg;

const REGIONS: [&str; 4] = ["north", "south", "east", "west"];

fn batch(
    g: &mut Lcg,
    start: usize,
    rows: usize,
) -> Result<RecordBatch, Box<dyn std::error::Error>> {
    let user: Vec<i64> = (0..rows).map(|_| (g.next() % 1000) as i64).collect();
    let region: Vec<&str> = user.iter().map(|u| REGIONS[(*u % 4) as usize]).collect();
    let day: Vec<i32> = (start..start + rows).map(|i| (i / 1000) as i32).collect();
    let lengths: Vec<usize> = (0..rows).map(|_| (g.next() % 20) as usize).collect();
    let total = lengths.iter().sum();
    // Minutes: mostly short, a long tail (1 + 119 u^3).
    let values: Vec<f64> = (0..total)
        .map(|_| {
            let u = g.unit();
            (1.0 + 119.0 * u * u * u).round()
        })
        .collect();
    let durations = ListArray::new(
        Arc::new(Field::new("item", DataType::Float64, true)),
        OffsetBuffer::from_lengths(lengths),
        Arc::new(Float64Array::from(values)),
        None,
    );
    Ok(RecordBatch::try_from_iter([
        ("user", Arc::new(Int64Array::from(user)) as ArrayRef),
        ("region", Arc::new(StringArray::from(region))),
        ("day", Arc::new(Int32Array::from(day))),
        ("durations", Arc::new(durations)),
    ])?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "sessions.parquet".into());
    let rows: usize = match args.next() {
        Some(n) => n.parse()?,
        None => 100_000,
    };
    let mut g = Lcg(2026);
    let first = batch(&mut g, 0, rows.min(65_536))?;
    let mut w = ArrowWriter::try_new(File::create(&path)?, first.schema(), None)?;
    w.write(&first)?;
    let mut done = first.num_rows();
    while done < rows {
        let b = batch(&mut g, done, (rows - done).min(65_536))?;
        w.write(&b)?;
        done += b.num_rows();
    }
    w.close()?;
    println!("wrote {rows} rows to {path}");
    Ok(())
}
