//! Writing output files whole or not at all, one or a set of them, with the permissions `cp`
//! would give them.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use tempfile::{NamedTempFile, TempPath};

use crate::error::{DriverError, Result};

/// Writes `bytes` to `path` through a temporary file in the same directory that is renamed
/// over `path` once complete: `path` never holds a partial file, and the temporary file is
/// removed if anything fails. A device or a pipe (`-o /dev/null`, `-o /dev/stdout`) is written
/// through instead: renaming a file over it would replace the device. A new file gets the
/// permissions the umask allows (0644 under the usual 022), an existing one keeps its own.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_all_atomically(&[(path, bytes)])
}

/// Writes every file of `files` as [`write_atomically`] does, all or none: each is first
/// written completely to a temporary file beside it, and only then are they renamed into
/// place. If a rename fails, the files already renamed are put back as they were (removed if
/// they are new), and no temporary file is left.
pub fn write_all_atomically(files: &[(&Path, &[u8])]) -> Result<()> {
    let staged = files
        .iter()
        .map(|&(path, bytes)| stage(path, bytes))
        .collect::<Result<Vec<_>>>()?;
    let mut committed: Vec<(&Path, Option<TempPath>)> = Vec::new();
    for (staged, &(path, _)) in staged.into_iter().zip(files) {
        match commit(path, staged) {
            Ok(backup) => committed.push((path, backup)),
            Err(error) => {
                for (path, backup) in committed.into_iter().rev() {
                    match backup {
                        Some(old) => {
                            let _ = old.persist(path);
                        }
                        None => {
                            let _ = fs::remove_file(path);
                        }
                    }
                }
                return Err(error);
            }
        }
    }
    Ok(())
}

/// A file ready to be put in place.
enum Staged<'a> {
    /// Complete in a temporary file beside its destination.
    File(TempPath),
    /// A device or pipe, written through at commit.
    Special(&'a [u8]),
}

fn failure(path: &Path) -> impl Fn(std::io::Error) -> DriverError + '_ {
    move |source| DriverError::Write {
        path: path.to_owned(),
        source,
    }
}

fn stage<'a>(path: &Path, bytes: &'a [u8]) -> Result<Staged<'a>> {
    let fail = failure(path);
    let existing = fs::metadata(path).ok();
    if existing
        .as_ref()
        .is_some_and(|meta| !meta.is_file() && !meta.is_dir())
    {
        return Ok(Staged::Special(bytes));
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // 0666 less the umask for a new file, as `cp` and the shell create files.
    let mut file = tempfile::Builder::new()
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(&fail)?;
    if let Some(meta) = existing.filter(|meta| meta.is_file()) {
        let mode = meta.permissions().mode() & 0o7777;
        file.as_file()
            .set_permissions(fs::Permissions::from_mode(mode))
            .map_err(&fail)?;
    }
    file.write_all(bytes).map_err(&fail)?;
    file.as_file().sync_all().map_err(&fail)?;
    Ok(Staged::File(file.into_temp_path()))
}

/// Puts a staged file in place; for a regular file it replaced, a link to the old one, kept
/// until the whole set is in place.
fn commit(path: &Path, staged: Staged<'_>) -> Result<Option<TempPath>> {
    let fail = failure(path);
    match staged {
        Staged::Special(bytes) => {
            let mut special = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(&fail)?;
            special.write_all(bytes).map_err(&fail)?;
            Ok(None)
        }
        Staged::File(temp) => {
            let dir = temp.parent().unwrap_or(Path::new("."));
            let backup = fs::symlink_metadata(path)
                .is_ok_and(|meta| meta.is_file())
                .then(|| tempfile::Builder::new().make_in(dir, |link| fs::hard_link(path, link)))
                .and_then(Result::ok)
                .map(NamedTempFile::into_temp_path);
            temp.persist(path).map_err(|error| fail(error.error))?;
            Ok(backup)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_files_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.mlir");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new text").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new text");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let missing = dir.path().join("absent/out.mlir");
        let error = write_atomically(&missing, b"x").unwrap_err().to_string();
        assert!(error.contains("absent/out.mlir"), "{error}");
        assert!(!missing.exists());
        // A directory cannot be replaced by a file: the rename fails after the write.
        let error = write_atomically(dir.path(), b"x").unwrap_err();
        assert!(matches!(error, DriverError::Write { .. }));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn new_files_get_what_the_umask_allows_and_existing_ones_keep_their_mode() {
        let dir = tempfile::tempdir().unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        // What the umask makes of a plain create, as `cp` or a shell redirection would.
        let reference = dir.path().join("reference");
        fs::File::create(&reference).unwrap();
        let new = dir.path().join("new.exe");
        write_atomically(&new, b"x").unwrap();
        assert_eq!(mode(&new), mode(&reference));
        let existing = dir.path().join("existing.exe");
        for kept in [0o644, 0o640, 0o600] {
            fs::write(&existing, b"old").unwrap();
            fs::set_permissions(&existing, fs::Permissions::from_mode(kept)).unwrap();
            write_atomically(&existing, b"new").unwrap();
            assert_eq!(mode(&existing), kept);
        }
    }

    #[test]
    fn a_set_is_written_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second, third) = (
            dir.path().join("out0.npy"),
            dir.path().join("out1.npy"),
            dir.path().join("out2.npy"),
        );
        fs::write(&second, b"old second").unwrap();
        // The third cannot be put in place: a directory has its name.
        fs::create_dir(&third).unwrap();
        let set = [
            (first.as_path(), &b"first"[..]),
            (second.as_path(), &b"second"[..]),
            (third.as_path(), &b"third"[..]),
        ];
        let error = write_all_atomically(&set).unwrap_err();
        assert!(error.to_string().contains("out2.npy"), "{error}");
        assert!(!first.exists(), "a new file of a failed set is removed");
        assert_eq!(
            fs::read(&second).unwrap(),
            b"old second",
            "an old one is restored"
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary left"
        );

        fs::remove_dir(&third).unwrap();
        write_all_atomically(&set).unwrap();
        for (path, bytes) in set {
            assert_eq!(fs::read(path).unwrap(), bytes);
        }
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            3,
            "no backup left"
        );
    }

    #[test]
    fn a_pipe_is_written_through_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opened first and without blocking, so the write finds a reader and a regression
        // fails here instead of hanging.
        let mut reader = {
            use std::os::unix::fs::OpenOptionsExt;
            const O_NONBLOCK: i32 = 0o4000;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(O_NONBLOCK)
                .open(&fifo)
                .unwrap()
        };
        write_atomically(&fifo, b"through the pipe").unwrap();
        let mut received = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader, &mut received);
        assert_eq!(received, b"through the pipe");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
