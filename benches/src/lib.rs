//! Shared helpers of the benchmarks in `benches/benches/`.

use std::path::{Path, PathBuf};

/// The largest `.pt2` fixture in `testdata/models`, by file size.
pub fn largest_fixture() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/models");
    std::fs::read_dir(&dir)
        .expect("testdata/models")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pt2"))
        .max_by_key(|p| p.metadata().map(|m| m.len()).unwrap_or(0))
        .expect("a .pt2 fixture")
}
