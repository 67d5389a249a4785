//! Output files that appear whole or not at all. Each output is written to a temporary file in
//! the target's own folder (made by the `tempfile` crate: a hidden, uniquely named file the
//! user never named) and renamed over the target once complete. A temporary file is removed on
//! every error path (when its [`Pending`] is dropped) and, since a signal skips destructors, by
//! the SIGINT/SIGTERM/SIGHUP handler that [`remove_on_signal`] installs, which also removes the
//! output folders this run created. A write error names the user's path, not the temporary one.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use unitxt::error::{Error, Result, ResultExt};

/// What a signal must remove: the temporary files being written and the folders this run
/// created, in creation order.
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn created() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    CREATED.lock().unwrap_or_else(|p| p.into_inner())
}

fn forget(path: &Path) {
    created().retain(|p| p != path);
}

/// Installs the handler of SIGINT, SIGTERM and SIGHUP (the `ctrlc` crate): it removes every
/// temporary file still pending and every output folder this run created and left empty, then
/// exits with status 130, as a shell reports an interrupted command. Errors: the handler could
/// not be installed (reported, the run goes on without it).
pub fn remove_on_signal() {
    let installed = ctrlc::set_handler(|| {
        for p in created().iter().rev() {
            if p.is_dir() {
                let _ = std::fs::remove_dir(p);
            } else {
                let _ = std::fs::remove_file(p);
            }
        }
        std::process::exit(130);
    });
    if let Err(e) = installed {
        eprintln!("warning: temporary files will not be removed on interrupt: {e}");
    }
}

/// A temporary file beside an output `target`, removed unless [`Pending::commit`] moves it
/// there.
pub struct Pending {
    file: tempfile::NamedTempFile,
    target: PathBuf,
    _listed: Listed,
}

/// A path on the signal handler's list, taken off it when dropped (the `NamedTempFile`
/// removes the file itself).
struct Listed(PathBuf);

impl Drop for Listed {
    fn drop(&mut self) {
        forget(&self.0);
    }
}

impl Pending {
    /// Creates the temporary file in `target`'s folder (`.NAME.XXXXXX.tmp`). Errors name
    /// `target`.
    pub fn beside(target: &Path) -> Result<Pending> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let file = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Error::io(format!("creating a temporary file for {} in {}: {e}", target.display(), dir.display())))?;
        created().push(file.path().to_path_buf());
        let listed = Listed(file.path().to_path_buf());
        Ok(Pending { file, target: target.to_path_buf(), _listed: listed })
    }

    /// The open temporary file, to write the output into.
    pub fn file(&mut self) -> &mut std::fs::File {
        self.file.as_file_mut()
    }

    /// Flushes the file and renames it over the target (no `fsync`: the rename makes the
    /// output appear whole to other programs, not durable across a power loss). Errors (a full
    /// disk, a target that cannot be replaced) name the target; the temporary file is removed
    /// then.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        self.file.as_file_mut().flush().map_err(|e| Error::io(format!("writing {}: {e}", target.display())))?;
        self.file.persist(&target).map(|_| ()).map_err(|e| Error::io(format!("writing {}: {}", target.display(), e.error)))
    }
}

/// Writes `bytes` to `target` through a [`Pending`] file.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut p = Pending::beside(target)?;
    p.file().write_all(bytes).map_err(|e| Error::io(format!("writing {}: {e}", target.display())))?;
    p.commit()
}

/// Creates folder `dir` and the missing folders above it, and returns those it created,
/// outermost first, so that a failed run can remove them ([`remove_created`]); a signal removes
/// them too while they are empty.
pub fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut d = Some(dir);
    while let Some(p) = d.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
        missing.push(p.to_path_buf());
        d = p.parent();
    }
    missing.reverse();
    std::fs::create_dir_all(dir).with_ctx(|| format!("creating {}", dir.display()))?;
    created().extend(missing.iter().cloned());
    Ok(missing)
}

/// Removes the folders [`create_dirs`] created, innermost first, where they are empty.
pub fn remove_created(dirs: &[PathBuf]) {
    for d in dirs.iter().rev() {
        let _ = std::fs::remove_dir(d);
        forget(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A committed file replaces the target and leaves nothing else; a dropped one leaves
    /// nothing at all, and a file named like the target with `.tmp` is not touched.
    #[test]
    fn pending_files_commit_or_vanish() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("results.json");
        std::fs::write(dir.path().join("results.tmp"), "mine").unwrap();
        write_atomic(&target, b"{}\n").unwrap();
        {
            let mut p = Pending::beside(&dir.path().join("other.jsonl")).unwrap();
            p.file().write_all(b"partial").unwrap();
        }
        let mut names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["results.json", "results.tmp"]);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}\n");
        assert_eq!(std::fs::read_to_string(dir.path().join("results.tmp")).unwrap(), "mine");
        assert!(!created().iter().any(|p| p.starts_with(dir.path())));
    }

    /// Folders made for an output are removed again, innermost first, and only those.
    #[test]
    fn created_folders_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a/b");
        let made = create_dirs(&out).unwrap();
        assert_eq!(made, [dir.path().join("a"), out.clone()]);
        remove_created(&made);
        assert!(!dir.path().join("a").exists());
        assert!(dir.path().exists());
    }
}
