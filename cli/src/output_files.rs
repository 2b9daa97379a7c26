//! A command's output files: their directories made when missing, then every file written or
//! none.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use miette::{Result, miette};

pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    let dirs: BTreeSet<&Path> = files.iter().filter_map(|(path, _)| path.parent()).collect();
    for dir in dirs {
        std::fs::create_dir_all(dir).map_err(|error| {
            miette!(
                help = "--output-dir must name a directory, or a path where one can be created",
                "cannot create {}: {error}",
                dir.display()
            )
        })?;
    }
    let set: Vec<(&Path, &[u8])> = files
        .iter()
        .map(|(path, bytes)| (path.as_path(), bytes.as_slice()))
        .collect();
    tpuc_driver::write_all_atomically(&set)?;
    Ok(())
}
