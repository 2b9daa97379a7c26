//! Writing output files whole or not at all.

use std::io::Write;
use std::path::Path;

use crate::error::{DriverError, Result};

/// Writes `bytes` to `path` through a temporary file in the same directory that is renamed
/// over `path` once complete: `path` never holds a partial file, and the temporary file is
/// removed if anything fails. A device or a pipe (`-o /dev/null`, `-o /dev/stdout`) is written
/// through instead: renaming a file over it would replace the device.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let fail = |source| DriverError::Write {
        path: path.to_owned(),
        source,
    };
    if std::fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
        let mut special = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(fail)?;
        return special.write_all(bytes).map_err(fail);
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    file.as_file().sync_all().map_err(fail)?;
    file.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
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
