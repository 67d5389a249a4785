//! Prepared instances written as a Parquet file with the schema of [`super::arrow`]
//! (Unitxt's dataset columns, with the `huggingface` features metadata), so that
//! `datasets.load_dataset("parquet", data_files=...)` gives the same columns and values as
//! Unitxt's `load_dataset`. Compression: zstd.

use std::io::Write;

use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result, ResultExt};
use super::arrow::ArrowRow;
use crate::stream::StreamOf;

/// Instances per row group batch handed to the writer.
const BATCH: usize = 1024;

/// Writes a stream of prepared instances, as Arrow rows (see [`super::arrow::ArrowRow`]), to
/// `out` as Parquet; returns the number written. Errors: a failing instance (from the stream),
/// or a write error.
pub fn write_parquet<W: Write + Send>(rows: StreamOf<ArrowRow>, out: W, mut progress: impl FnMut(u64)) -> Result<u64> {
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let mut w = ArrowWriter::try_new(out, super::arrow::dataset_schema(), Some(props))
        .map_err(|e| Error::io(format!("starting the Parquet file: {e}")))?;
    let mut n: u64 = 0;
    let mut buf: Vec<ArrowRow> = Vec::with_capacity(BATCH);
    let flush = |buf: &mut Vec<ArrowRow>, w: &mut ArrowWriter<W>, first: u64| -> Result<()> {
        let batch = super::arrow::rows_to_batch(buf).with_ctx(|| format!("instances from {first}"))?;
        super::arrow::recycle_rows(buf.drain(..));
        w.write(&batch).map_err(|e| Error::io(format!("writing Parquet: {e}")))?;
        Ok(())
    };
    for row in rows {
        buf.push(row?);
        n += 1;
        if buf.len() == BATCH {
            flush(&mut buf, &mut w, n - BATCH as u64)?;
            progress(n);
        }
    }
    if !buf.is_empty() {
        let first = n - buf.len() as u64;
        flush(&mut buf, &mut w, first)?;
    }
    progress(n);
    w.close().map_err(|e| Error::io(format!("finishing the Parquet file: {e}")))?;
    Ok(n)
}
