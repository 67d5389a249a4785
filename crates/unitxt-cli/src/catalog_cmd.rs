//! `unitxt-rs catalog ...`: install Unitxt's catalog (from the Unitxt wheel, with pip) and
//! look artifacts up.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use clap::Subcommand;
use indexmap::IndexMap;
use unitxt::catalog::{default_catalog_dir, Catalog, UNITXT_VERSION};
use unitxt::error::{Error, Need, Result};
use unitxt::registry::Outcome;

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
    /// Build every artifact (or those whose name starts with PREFIX, e.g. `cards.`) and report,
    /// per top folder, how many work, need an endpoint (engines that call an OpenAI-compatible
    /// API, LLM judges whose engine does), need a model (local weights, an engine that cannot be
    /// called here), need the network, and fail, with the reasons grouped; exits with 1 when any
    /// fails.
    Check {
        /// Only artifacts whose name starts with this (e.g. `cards.mmlu`).
        #[arg(default_value = "")]
        prefix: String,
        /// Extra catalog directories (as for `prepare`).
        #[arg(long = "catalog")]
        catalogs: Vec<PathBuf>,
        /// List every artifact that does not work, with its reason, not only the groups.
        #[arg(long)]
        list: bool,
        /// Print the report as JSON: `{"folders": {FOLDER: {"works", "needs_endpoint",
        /// "needs_model", "needs_network", "fails"}}, "total": {...}, "artifacts": [{"name",
        /// "status", "reason"}]}` (artifacts that work are not listed).
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: CatalogCommand) -> Result<()> {
    match cmd {
        CatalogCommand::Install { to, python } => install(to.unwrap_or_else(default_catalog_dir), &python),
        CatalogCommand::Where => {
            for d in Catalog::standard(&[]).dirs() {
                outln!("{}", d.display())?;
            }
            Ok(())
        }
        CatalogCommand::Show { name, catalogs } => {
            let cat = Arc::new(Catalog::standard(&catalogs));
            let v = cat.get_json(&name)?;
            outln!("{}", serde_json::to_string_pretty(&*v).map_err(|e| Error::invalid(e.to_string()))?)?;
            Ok(())
        }
        CatalogCommand::Check {
            prefix,
            catalogs,
            list,
            json,
        } => check(&Arc::new(Catalog::standard(&catalogs)), &prefix, list, json),
    }
}

/// The five columns of `catalog check`, in order, as the JSON report names them.
const STATUSES: [&str; 5] = ["works", "needs_endpoint", "needs_model", "needs_network", "fails"];

/// The column of `outcome` in [`STATUSES`], with its reason.
fn status(outcome: &Outcome) -> (usize, Option<&str>) {
    match outcome {
        Outcome::Works => (0, None),
        Outcome::Needs(u) => match u.need {
            Need::Endpoint => (1, Some(&u.reason)),
            Need::Model => (2, Some(&u.reason)),
            Need::Network => (3, Some(&u.reason)),
        },
        Outcome::Fails(cause) => (4, Some(cause)),
    }
}

/// `catalog check`: prints a table of the five counts ([`STATUSES`]) per top folder (`cards`,
/// `metrics`, ...) and in total, then, for each column but "works", the reasons with their
/// count and one artifact that has it, most frequent first (with `list`: every such artifact
/// and its reason). With `json`, the same as one JSON document on stdout. Errors when an
/// artifact fails, or when no artifact matches `prefix`.
fn check(cat: &Arc<Catalog>, prefix: &str, list: bool, json: bool) -> Result<()> {
    let results = unitxt::registry::check(cat, prefix);
    if results.is_empty() {
        let dirs: Vec<String> = cat.dirs().iter().map(|d| d.display().to_string()).collect();
        let what = if prefix.is_empty() { "no artifact".to_string() } else { format!("no artifact name starts with {prefix:?}") };
        return Err(Error::not_found(format!(
            "{what} in the catalogs (searched: {}; run `unitxt-rs catalog install` for Unitxt's catalog)",
            if dirs.is_empty() { "none".to_string() } else { dirs.join(", ") }
        )));
    }
    let mut folders: IndexMap<&str, [usize; 5]> = IndexMap::new();
    let mut total = [0usize; 5];
    for (name, outcome) in &results {
        let folder = name.split('.').next().unwrap_or_default();
        let (col, _) = status(outcome);
        folders.entry(folder).or_default()[col] += 1;
        total[col] += 1;
    }
    folders.sort_keys();
    let fails = total[4];
    if json {
        let counts = |c: &[usize; 5]| -> serde_json::Value {
            STATUSES
                .iter()
                .zip(c)
                .map(|(s, n)| (s.to_string(), serde_json::Value::from(*n)))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let artifacts: Vec<serde_json::Value> = results
            .iter()
            .filter_map(|(name, outcome)| {
                let (col, reason) = status(outcome);
                Some(serde_json::json!({"name": name, "status": STATUSES[col], "reason": reason?}))
            })
            .collect();
        let doc = serde_json::json!({
            "folders": folders.iter().map(|(f, c)| (f.to_string(), counts(c))).collect::<serde_json::Map<_, _>>(),
            "total": counts(&total),
            "artifacts": artifacts,
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| Error::invalid(e.to_string()))?
        )?;
    } else {
        outln!(
            "{:<16} {:>7} {:>15} {:>12} {:>14} {:>6}",
            "folder", "works", "needs endpoint", "needs model", "needs network", "fails"
        )?;
        for (folder, c) in folders
            .iter()
            .map(|(f, c)| (*f, c))
            .chain([("total", &total)])
        {
            outln!(
                "{folder:<16} {:>7} {:>15} {:>12} {:>14} {:>6}",
                c[0], c[1], c[2], c[3], c[4]
            )?;
        }
        for (col, title) in [
            (1, "needs an endpoint (an OpenAI-compatible API and its key)"),
            (2, "needs a model (local weights, or an engine that cannot be called here)"),
            (3, "needs the network"),
            (4, "fails"),
        ] {
            let of_col: Vec<(&str, &str)> = results
                .iter()
                .filter_map(|(n, o)| match status(o) {
                    (c, Some(reason)) if c == col => Some((n.as_str(), reason)),
                    _ => None,
                })
                .collect();
            if of_col.is_empty() {
                continue;
            }
            // reason -> (count, first artifact with it); most frequent first, then by reason.
            let mut by_reason: IndexMap<&str, (usize, &str)> = IndexMap::new();
            for (name, reason) in &of_col {
                by_reason.entry(reason).or_insert((0, name)).0 += 1;
            }
            by_reason.sort_by(|ra, a, rb, b| b.0.cmp(&a.0).then(ra.cmp(rb)));
            outln!(
                "\n{title} ({} artifacts; count, reason, e.g. artifact):",
                of_col.len()
            )?;
            for (reason, (count, example)) in &by_reason {
                outln!("{count:6}  {reason}  ({example})")?;
            }
            if list {
                for (name, reason) in &of_col {
                    outln!("  {name}: {reason}")?;
                }
            }
        }
    }
    if fails > 0 {
        return Err(Error::invalid(format!(
            "{fails} of {} artifacts fail",
            results.len()
        )));
    }
    Ok(())
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
