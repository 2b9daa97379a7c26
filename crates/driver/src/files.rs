//! Writing output files whole or not at all.

use std::io::Write;
use std::path::Path;

use crate::error::{DriverError, Result};

/// Writes `bytes` to `path` through a temporary file in the same directory that is renamed
/// over `path` once complete: `path` never holds a partial file, and the temporary file is
/// removed if anything fails.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let fail = |source| DriverError::Write {
        path: path.to_owned(),
        source,
    };
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
}
