//! Input files as `dynd-sql` takes them: a session with dynd's functions
//! and a memory pool ([`session`]), tables registered by file type
//! ([`register_file`]), and checks on a file before DataFusion reads it.
//!
//! Parquet's and Arrow's readers trust the lengths a file states. The
//! object store reads a Parquet column chunk of the stated length into a
//! buffer of that size ([`check_parquet_file`] checks the ranges first).
//! Arrow's IPC reader likewise: a file cut short
//! (no `ARROW1` at its end) is read as a stream, whose first four bytes —
//! `ARRO` — then say a message of 1.3 GB follows, and the reader allocates
//! that much before it finds out; a flipped bit in a message's body length
//! can ask for far more, which ends the process. [`check_ipc_file`] walks
//! the file's structure first — the footer and its blocks for the file
//! format, each message for the stream format — and refuses any length
//! that reaches past the end of the file, so what DataFusion then
//! allocates is bounded by the file's size. A file in the file format
//! must also open as one (its schema and dictionaries read): DataFusion
//! would otherwise retry it as a stream, and meet the 1.3 GB length.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use datafusion::arrow::ipc::{root_as_footer, root_as_message};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{CsvReadOptions, ParquetReadOptions, SessionConfig, SessionContext};

/// A session with every dynd builtin registered ([`crate::register_all`])
/// whose buffering operators (sorts, joins, aggregates) share a pool of
/// `memory_limit` bytes: past it they spill or fail with an error.
///
/// # Errors
///
/// As [`crate::register_all`].
pub fn session(memory_limit: usize) -> Result<SessionContext> {
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(memory_limit, 1.0)
        .build_arc()?;
    let state = SessionStateBuilder::new()
        .with_config(SessionConfig::new())
        .with_runtime_env(runtime)
        .with_default_features()
        .build();
    let ctx = SessionContext::from(state);
    crate::register_all(&ctx)?;
    Ok(ctx)
}

/// Registers the file at `path` as table `name`, by its extension:
/// `.parquet`, `.csv`, or `.arrow`/`.ipc`/`.feather` (Arrow IPC, checked
/// first by [`check_ipc_file`]).
///
/// # Errors
///
/// A configuration error for another extension; DataFusion's error for a
/// file it cannot read; [`check_ipc_file`]'s.
pub async fn register_file(ctx: &SessionContext, name: &str, path: &str) -> Result<()> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".parquet") {
        // Column chunks past the file's end are refused before the object
        // store allocates a buffer of their stated size.
        check_parquet_file(Path::new(path))?;
        ctx.register_parquet(name, path, ParquetReadOptions::default())
            .await
    } else if lower.ends_with(".csv") {
        ctx.register_csv(name, path, CsvReadOptions::new()).await
    } else if [".arrow", ".ipc", ".feather"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        // Lengths past the file's end are refused before Arrow's reader
        // allocates them.
        check_ipc_file(Path::new(path))?;
        ctx.register_arrow(name, path, Default::default()).await
    } else {
        Err(DataFusionError::Configuration(format!(
            "{path}: unknown file type (expected .parquet, .csv, .arrow, .ipc or .feather)"
        )))
    }
}

const MAGIC: &[u8; 6] = b"ARROW1";

fn bad(path: &Path, what: String) -> DataFusionError {
    DataFusionError::Execution(format!(
        "{} is not a well-formed Arrow IPC file: {what}",
        path.display()
    ))
}

/// Checks that the Parquet file at `path` states no byte range past its
/// end: each column chunk, column index, offset index and bloom filter
/// its footer lists. The object store reads a stated range into a buffer
/// of that size first, so a flipped bit in a chunk's length asked for
/// 44 TB, and the allocation failure ended the process.
///
/// # Errors
///
/// An execution error naming the column chunk and its range, or the
/// Parquet reader's error for a footer that does not parse.
pub fn check_parquet_file(path: &Path) -> Result<()> {
    use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
    let size = std::fs::metadata(path)?.len();
    let reader = SerializedFileReader::new(File::open(path)?)?;
    let bad = |what: String| {
        DataFusionError::Execution(format!(
            "{} is not a well-formed Parquet file: {what}",
            path.display()
        ))
    };
    for (g, group) in reader.metadata().row_groups().iter().enumerate() {
        for (c, column) in group.columns().iter().enumerate() {
            let (start, len) = column.byte_range();
            let extra = [
                (column.column_index_offset(), column.column_index_length()),
                (column.offset_index_offset(), column.offset_index_length()),
                (column.bloom_filter_offset(), column.bloom_filter_length()),
            ];
            let ranges = std::iter::once(Some((Some(start), Some(len)))).chain(extra.iter().map(
                |&(o, l)| {
                    o.map(|o| {
                        (
                            u64::try_from(o).ok(),
                            l.map(|l| u64::try_from(l).ok()).unwrap_or(Some(0)),
                        )
                    })
                },
            ));
            for range in ranges.flatten() {
                let fits = match range {
                    (Some(at), Some(n)) => at.checked_add(n).is_some_and(|end| end <= size),
                    _ => false,
                };
                if !fits {
                    let text =
                        |x: Option<u64>| x.map_or("a negative number".into(), |x| x.to_string());
                    return Err(bad(format!(
                        "column chunk {c} of row group {g} states {} bytes at byte {}, past the end ({size} bytes)",
                        text(range.1),
                        text(range.0)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Reads `len` bytes at `at`, after checking they lie in the file.
fn read_at(f: &mut File, size: u64, at: u64, len: u64, path: &Path, what: &str) -> Result<Vec<u8>> {
    let end = at.checked_add(len).filter(|&e| e <= size).ok_or_else(|| {
        bad(
            path,
            format!("{what} of {len} bytes at byte {at} reaches past the end ({size} bytes)"),
        )
    })?;
    let mut buf = vec![0; (end - at) as usize];
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(&mut buf)?;
    Ok(buf)
}

/// Checks that the Arrow IPC file (or stream) at `path` states no length
/// past its end (see the [module docs](self)).
///
/// # Errors
///
/// An execution error saying which length reaches where, or that a
/// message's metadata does not parse; an I/O error.
pub fn check_ipc_file(path: &Path) -> Result<()> {
    let mut f = File::open(path)?;
    let size = f.metadata()?.len();
    let head = read_at(&mut f, size, 0, size.min(8), path, "the header")?;
    let tail = read_at(
        &mut f,
        size,
        size.saturating_sub(10),
        size.min(10),
        path,
        "the end",
    )?;
    if size >= 18 && head.starts_with(MAGIC) && tail.ends_with(MAGIC) {
        // The file format: a footer before the closing magic, listing
        // blocks (a message's offset, metadata and body lengths).
        let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        let footer_len = u64::try_from(footer_len)
            .map_err(|_| bad(path, format!("a negative footer length ({footer_len})")))?;
        let footer_at = (size - 10)
            .checked_sub(footer_len)
            .filter(|&a| a >= 8)
            .ok_or_else(|| {
                bad(
                    path,
                    format!("a footer of {footer_len} bytes in a file of {size}"),
                )
            })?;
        let bytes = read_at(&mut f, size, footer_at, footer_len, path, "the footer")?;
        let footer = root_as_footer(&bytes).map_err(|e| bad(path, format!("its footer: {e}")))?;
        let blocks = footer
            .dictionaries()
            .into_iter()
            .flatten()
            .chain(footer.recordBatches().into_iter().flatten());
        for b in blocks {
            let (at, meta, body) = (b.offset(), b.metaDataLength(), b.bodyLength());
            let parts = (u64::try_from(at), u64::try_from(meta), u64::try_from(body));
            let (Ok(at), Ok(meta), Ok(body)) = parts else {
                return Err(bad(
                    path,
                    format!("a block with a negative length ({at}, {meta}, {body})"),
                ));
            };
            let end = at.checked_add(meta).and_then(|e| e.checked_add(body));
            if end.is_none_or(|e| e > footer_at) {
                return Err(bad(
                    path,
                    format!("a block at byte {at} of {meta} + {body} bytes reaches past the data"),
                ));
            }
            check_message(&mut f, size, at, at + meta, path)?;
        }
        // The schema and dictionaries as DataFusion will read them: if
        // that failed there, it would retry the file as a stream, whose
        // first length is the magic's `ARRO`, 1.3 GB.
        datafusion::arrow::ipc::reader::FileReader::try_new(File::open(path)?, None)
            .map_err(|e| bad(path, e.to_string()))?;
        return Ok(());
    }
    // The stream format (how DataFusion reads a file without the closing
    // magic): messages one after another, to an end marker or the end.
    let mut at = 0;
    while at < size {
        match check_message(&mut f, size, at, size, path)? {
            Some(next) => at = next,
            None => break,
        }
    }
    Ok(())
}

/// Checks the message at `at` (continuation marker, metadata length,
/// metadata, body), whose metadata must end by `limit`: the offset after
/// it, or `None` at an end-of-stream marker.
fn check_message(f: &mut File, size: u64, at: u64, limit: u64, path: &Path) -> Result<Option<u64>> {
    let word = |f: &mut File, at: u64| -> Result<i32> {
        let b = read_at(f, size, at, 4, path, "a message length")?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut pos = at;
    let mut len = word(f, pos)?;
    pos += 4;
    if len == -1 {
        len = word(f, pos)?;
        pos += 4;
    }
    if len == 0 {
        return Ok(None);
    }
    let len = u64::try_from(len)
        .map_err(|_| bad(path, format!("a message length of {len} at byte {at}")))?;
    if pos.checked_add(len).is_none_or(|e| e > limit) {
        return Err(bad(
            path,
            format!(
                "a message at byte {at} says {len} bytes of metadata, past the end ({size} bytes)"
            ),
        ));
    }
    let meta = read_at(f, size, pos, len, path, "a message's metadata")?;
    let message =
        root_as_message(&meta).map_err(|e| bad(path, format!("the message at byte {at}: {e}")))?;
    pos += len;
    let body = u64::try_from(message.bodyLength())
        .map_err(|_| bad(path, format!("a negative body length at byte {at}")))?;
    let end = pos.checked_add(body).filter(|&e| e <= size).ok_or_else(|| {
        bad(
            path,
            format!("the message at byte {at} says a body of {body} bytes, past the end ({size} bytes)"),
        )
    })?;
    Ok(Some(end))
}
