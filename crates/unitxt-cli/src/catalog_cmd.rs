//! `unitxt-rs catalog ...`: install Unitxt's catalog (from the Unitxt wheel, with pip) and
//! look artifacts up.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use clap::Subcommand;
use unitxt::catalog::{default_catalog_dir, Catalog, UNITXT_VERSION};
use unitxt::error::{Error, Result};

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// Download the Unitxt wheel with `pip download --no-deps unitxt==<version>` and unpack
    /// its `unitxt/catalog` folder (into $UNITXT_RS_CATALOG or ~/.cache/unitxt-rs/catalog-<version>).
    Install {
        /// Target directory (default: the standard catalog location).
        #[arg(long)]
        to: Option<PathBuf>,
        /// Python interpreter that has pip.
        #[arg(long, default_value = "python3")]
        python: String,
    },
    /// Print where the catalogs are searched, highest precedence first.
    Where,
    /// Print an artifact's JSON.
    Show {
        name: String,
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
    },
    /// Build every artifact (or those whose name starts with PREFIX, e.g. `cards.`) and report
    /// how many build, with the failures grouped by cause; exits with 1 when any fails.
    Check {
        /// Only artifacts whose name starts with this (e.g. `cards.mmlu`).
        #[arg(default_value = "")]
        prefix: String,
        /// Extra catalog directories (as for `prepare`).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
        /// List every failing artifact with its cause, not only the groups.
        #[arg(long)]
        list: bool,
    },
}

pub fn run(cmd: CatalogCommand) -> Result<()> {
    match cmd {
        CatalogCommand::Install { to, python } => install(to.unwrap_or_else(default_catalog_dir), &python),
        CatalogCommand::Where => {
            for d in Catalog::standard(&[]).dirs() {
                println!("{}", d.display());
            }
            Ok(())
        }
        CatalogCommand::Show { name, catalogs } => {
            let cat = Arc::new(Catalog::standard(&catalogs));
            let v = cat.get_json(&name)?;
            println!("{}", serde_json::to_string_pretty(&*v).map_err(|e| Error::invalid(e.to_string()))?);
            Ok(())
        }
        CatalogCommand::Check { prefix, catalogs, list } => check(&Arc::new(Catalog::standard(&catalogs)), &prefix, list),
    }
}

/// `catalog check`: prints `N of M artifacts build`, then each cause of failure (the first
/// line of the error) with its count and one artifact that has it, most frequent first (with
/// `list`: every failing artifact and its cause). Errors when an artifact fails, or when no
/// artifact matches `prefix`.
fn check(cat: &Arc<Catalog>, prefix: &str, list: bool) -> Result<()> {
    let results = unitxt::registry::check(cat, prefix);
    if results.is_empty() {
        let dirs: Vec<String> = cat.dirs().iter().map(|d| d.display().to_string()).collect();
        let what = if prefix.is_empty() { "no artifact".to_string() } else { format!("no artifact name starts with {prefix:?}") };
        return Err(Error::not_found(format!(
            "{what} in the catalogs (searched: {}; run `unitxt-rs catalog install` for Unitxt's catalog)",
            if dirs.is_empty() { "none".to_string() } else { dirs.join(", ") }
        )));
    }
    let failed: Vec<(&str, &str)> = results.iter().filter_map(|(n, e)| Some((n.as_str(), e.as_deref()?))).collect();
    println!("{} of {} artifacts build", results.len() - failed.len(), results.len());
    if failed.is_empty() {
        return Ok(());
    }
    // cause -> (count, first artifact with it); most frequent first, then by cause.
    let mut by_cause: std::collections::HashMap<&str, (usize, &str)> = std::collections::HashMap::new();
    for (name, cause) in &failed {
        by_cause.entry(cause).or_insert((0, name)).0 += 1;
    }
    let mut causes: Vec<(&str, (usize, &str))> = by_cause.into_iter().collect();
    causes.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    println!("failures by cause (count, cause, e.g. artifact):");
    for (cause, (count, example)) in &causes {
        println!("{count:6}  {cause}  ({example})");
    }
    if list {
        println!("failing artifacts:");
        for (name, cause) in &failed {
            println!("{name}: {cause}");
        }
    }
    Err(Error::invalid(format!("{} of {} artifacts do not build", failed.len(), results.len())))
}

const UNPACK: &str = r#"
import sys, zipfile, glob, os, shutil
src, dest = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(src, "unitxt-*.whl"))[0]
tmp = dest + ".partial"
shutil.rmtree(tmp, ignore_errors=True)
with zipfile.ZipFile(wheel) as z:
    for m in z.namelist():
        if m.startswith("unitxt/catalog/") and not m.endswith("/"):
            rel = m[len("unitxt/catalog/"):]
            out = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(m) as f, open(out, "wb") as g:
                g.write(f.read())
shutil.rmtree(dest, ignore_errors=True)
os.replace(tmp, dest)
print(sum(len(fs) for _, _, fs in os.walk(dest)))
"#;

fn install(dest: PathBuf, python: &str) -> Result<()> {
    let tmp = std::env::temp_dir().join(format!("unitxt-rs-wheel-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let status = Command::new(python)
        .args(["-m", "pip", "download", "--no-deps", "--quiet", &format!("unitxt=={UNITXT_VERSION}"), "-d"])
        .arg(&tmp)
        .status()
        .map_err(|e| Error::io(format!("could not run {python} -m pip: {e}")))?;
    if !status.success() {
        return Err(Error::io(format!("pip download of unitxt=={UNITXT_VERSION} failed")));
    }
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let out = Command::new(python)
        .args(["-c", UNPACK])
        .arg(&tmp)
        .arg(&dest)
        .output()
        .map_err(|e| Error::io(format!("could not run {python}: {e}")))?;
    let _ = std::fs::remove_dir_all(&tmp);
    if !out.status.success() {
        return Err(Error::io(format!("unpacking the catalog failed: {}", String::from_utf8_lossy(&out.stderr))));
    }
    eprintln!(
        "installed Unitxt {UNITXT_VERSION} catalog ({} files) into {}",
        String::from_utf8_lossy(&out.stdout).trim(),
        dest.display()
    );
    Ok(())
}
