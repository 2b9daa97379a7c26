//! Shared helpers of the benchmarks in `benches/benches/`.

use std::path::{Path, PathBuf};

pub mod op_count;

/// `testdata/models`.
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/models")
}

/// The peer comparison set, the checkout's sibling `shared/peers` (`models/`, `torch_xla/`,
/// `README.md`); `None` where it is absent.
pub fn peers_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/peers");
    dir.is_dir().then_some(dir)
}

/// The largest `.pt2` fixture in `testdata/models`, by file size.
pub fn largest_fixture() -> PathBuf {
    std::fs::read_dir(fixture_dir())
        .expect("testdata/models")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pt2"))
        .max_by_key(|p| p.metadata().map(|m| m.len()).unwrap_or(0))
        .expect("a .pt2 fixture")
}

/// Copies the files (not subdirectories) of `from` into `to`, creating it.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("creates the directory");
    for entry in std::fs::read_dir(from).expect("reads the directory") {
        let entry = entry.expect("directory entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copies the file");
    }
}
