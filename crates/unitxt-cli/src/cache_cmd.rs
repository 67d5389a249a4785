//! `unitxt-rs cache ...`: where the local Arrow cache of decoded Parquet data is, what it
//! holds, and clearing it (see `unitxt::loaders::arrow_cache`).

use clap::Subcommand;
use unitxt::error::Result;
use unitxt::loaders::arrow_cache::{cache_dir, cache_files, clear, CACHE_ENV};

#[derive(Subcommand)]
pub enum CacheCommand {
    /// Print the cache directory, its number of files (entries, and temporary files of entries
    /// being written) and their size.
    Info,
    /// Remove every entry (files of the cache only; the directory stays).
    Clear,
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Runs a `cache` subcommand; prints to stdout.
pub fn run(command: CacheCommand) -> Result<()> {
    let Some(dir) = cache_dir() else {
        outln!("the Arrow cache is off ({CACHE_ENV})")?;
        return Ok(());
    };
    match command {
        CacheCommand::Info => {
            let files = cache_files(&dir);
            let bytes: u64 = files.iter().map(|(_, n)| n).sum();
            outln!("{}", dir.display())?;
            outln!("{} files, {}", files.len(), mib(bytes))?;
        }
        CacheCommand::Clear => {
            let (n, bytes) = clear(&dir)?;
            outln!("removed {n} files ({}) from {}", mib(bytes), dir.display())?;
        }
    }
    Ok(())
}
