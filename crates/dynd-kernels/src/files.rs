//! Files as record arrays, on arrow-rs's readers and writers: Parquet
//! (feature `parquet`), CSV (`csv`) and Arrow IPC (`ipc`).
//!
//! A file of `N` rows and columns `a: A, b: B, ...` reads as one record
//! array `N * {a: A, b: B, ...}` held as columns ([`Array::from_columns`]):
//! each column is the buffer the reader decoded, not copied again (a file
//! read in several batches is joined into one first). Writing takes a
//! record array (`N * {...}`) and writes one column per field, from the
//! fields' own buffers where they are columns already.
//!
//! The arrow-rs crates are those of the release the facade re-exports
//! (`dynd::nd::arrow_interop::arrow_array`): a program that uses
//! `parquet` or `arrow` itself should take the same version.
//!
//! ```
//! # #[cfg(feature = "parquet")] {
//! use dynd::nd::{files, Array};
//!
//! let dir = std::env::temp_dir().join(format!("dynd-files-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("points.parquet");
//! let p = Array::from_json(
//!     r#"[{"x": 1.5, "name": "a"}, {"x": -2, "name": "日本"}]"#,
//!     Some(&"2 * {x: float64, name: string}".parse()?),
//! )?;
//! files::write_parquet(&path, &p)?;
//! let back = files::read_parquet(&path)?;
//! assert_eq!(back.ty().to_string(), "2 * {x: float64, name: string}");
//! assert_eq!(back.to_string(), p.to_string());
//! assert!(back.is_columnar());
//! # std::fs::remove_dir_all(&dir)?;
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::path::Path;
#[cfg(any(feature = "csv", feature = "ipc"))]
use std::sync::Arc;

use dynd_array::arrow::arrow;
use dynd_types::ArrowProblem;

use crate::arrow_interop::arrow_array::RecordBatch;
use crate::arrow_interop::arrow_schema::SchemaRef;
use crate::arrow_interop::ToArrow;
use crate::{Array, Error};

/// An I/O or format error on `path` in `op`.
fn file_error(op: &'static str, path: &Path, e: impl std::fmt::Display) -> Error {
    arrow(
        op,
        ArrowProblem::Arrow(format!("{}: {e}", path.display()).into()),
        "",
    )
}

/// One record array of a file's batches (joined if there are several).
#[cfg(any(feature = "parquet", feature = "csv", feature = "ipc"))]
fn from_batches(
    op: &'static str,
    path: &Path,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<Array, Error> {
    let batch = match batches.len() {
        1 => batches
            .into_iter()
            .next()
            .unwrap_or_else(|| RecordBatch::new_empty(schema)),
        _ => arrow_select::concat::concat_batches(&schema, &batches)
            .map_err(|e| file_error(op, path, e))?,
    };
    Array::from_record_batch(&batch)
}

/// The record batch of a record array (`N * {...}`) to write.
fn batch_of(a: &Array) -> Result<RecordBatch, Error> {
    a.to_record_batch()
}

/// The Parquet file at `path` as a record array (see the [module
/// docs](self)); every codec of the `parquet` crate's common ones reads
/// (snappy, zstd, lz4, gzip).
///
/// # Errors
///
/// [`Error::Arrow`] naming the file and what the reader found wrong;
/// a column type dynd does not hold (named).
#[cfg(feature = "parquet")]
pub fn read_parquet(path: impl AsRef<Path>) -> Result<Array, Error> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let path = path.as_ref();
    let op = "read_parquet";
    let file = File::open(path).map_err(|e| file_error(op, path, e))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| file_error(op, path, e))?;
    let rows = builder.metadata().file_metadata().num_rows().max(1);
    let schema = builder.schema().clone();
    // One batch for the whole file where it fits: no join afterwards.
    let reader = builder
        .with_batch_size(usize::try_from(rows).unwrap_or(usize::MAX).min(1 << 30))
        .build()
        .map_err(|e| file_error(op, path, e))?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(op, path, e))?;
    from_batches(op, path, schema, batches)
}

/// Writes a record array (`N * {...}`) to a Parquet file at `path`
/// (snappy-compressed, as pyarrow writes by default).
///
/// # Errors
///
/// [`Error::NeedsArray`] for an array of something else; as
/// [`ToArrow::to_arrow`] for a field with no Arrow type; [`Error::Arrow`]
/// for an I/O error, naming the file.
#[cfg(feature = "parquet")]
pub fn write_parquet(path: impl AsRef<Path>, records: &Array) -> Result<(), Error> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    let path = path.as_ref();
    let op = "write_parquet";
    let batch = batch_of(records)?;
    let file = File::create(path).map_err(|e| file_error(op, path, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props))
        .map_err(|e| file_error(op, path, e))?;
    w.write(&batch).map_err(|e| file_error(op, path, e))?;
    w.close().map_err(|e| file_error(op, path, e))?;
    Ok(())
}

/// The Arrow IPC file (the file format, `.arrow`/`.feather`) at `path` as
/// a record array.
///
/// # Errors
///
/// [`Error::Arrow`] naming the file and what the reader found wrong.
#[cfg(feature = "ipc")]
pub fn read_ipc(path: impl AsRef<Path>) -> Result<Array, Error> {
    let path = path.as_ref();
    let op = "read_ipc";
    let file = File::open(path).map_err(|e| file_error(op, path, e))?;
    let reader =
        arrow_ipc::reader::FileReader::try_new(file, None).map_err(|e| file_error(op, path, e))?;
    let schema: SchemaRef = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(op, path, e))?;
    from_batches(op, path, Arc::clone(&schema), batches)
}

/// Writes a record array (`N * {...}`) to an Arrow IPC file at `path`.
///
/// # Errors
///
/// As [`write_parquet`].
#[cfg(feature = "ipc")]
pub fn write_ipc(path: impl AsRef<Path>, records: &Array) -> Result<(), Error> {
    let path = path.as_ref();
    let op = "write_ipc";
    let batch = batch_of(records)?;
    let file = File::create(path).map_err(|e| file_error(op, path, e))?;
    let mut w = arrow_ipc::writer::FileWriter::try_new(file, &batch.schema())
        .map_err(|e| file_error(op, path, e))?;
    w.write(&batch).map_err(|e| file_error(op, path, e))?;
    w.finish().map_err(|e| file_error(op, path, e))?;
    Ok(())
}

/// How [`read_csv`] reads a CSV file.
#[cfg(feature = "csv")]
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// Whether the first line names the columns (else they are
    /// `column_1`, `column_2`, ...). Default `true`.
    pub header: bool,
    /// The field separator. Default `b','`.
    pub delimiter: u8,
    /// How many rows to read to infer the columns' types (`None`: all).
    /// Default 1000.
    pub infer_rows: Option<usize>,
}

#[cfg(feature = "csv")]
impl Default for CsvOptions {
    fn default() -> CsvOptions {
        CsvOptions {
            header: true,
            delimiter: b',',
            infer_rows: Some(1000),
        }
    }
}

/// The CSV file at `path` as a record array, each column's type inferred
/// from its values (integers `int64`, decimals `float64`, `true`/`false`
/// `bool`, anything else `string`; an empty field is NA, so a column with
/// one is optional).
///
/// # Errors
///
/// [`Error::Arrow`] naming the file and the line the reader stopped at.
#[cfg(feature = "csv")]
pub fn read_csv(path: impl AsRef<Path>, options: &CsvOptions) -> Result<Array, Error> {
    use arrow_csv::reader::{Format, ReaderBuilder};
    use std::io::{Seek, SeekFrom};
    let path = path.as_ref();
    let op = "read_csv";
    let mut file = File::open(path).map_err(|e| file_error(op, path, e))?;
    let format = Format::default()
        .with_header(options.header)
        .with_delimiter(options.delimiter);
    let (schema, _) = format
        .infer_schema(&mut file, options.infer_rows)
        .map_err(|e| file_error(op, path, e))?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| file_error(op, path, e))?;
    let schema: SchemaRef = Arc::new(schema);
    let reader = ReaderBuilder::new(Arc::clone(&schema))
        .with_format(format)
        .with_batch_size(1 << 16)
        .build(file)
        .map_err(|e| file_error(op, path, e))?;
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(op, path, e))?;
    from_batches(op, path, schema, batches)
}
