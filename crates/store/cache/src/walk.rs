//! Walking the cache without ever following a symbolic link out of it.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// A walk over the cache's directories that collects what it refused to follow.
pub(crate) struct Walk {
    /// Whether symbolic links found where the cache keeps its own files are removed (the
    /// links, never their targets) or only skipped.
    unlink: bool,
    pub warnings: Vec<String>,
}

impl Walk {
    pub fn new(unlink: bool) -> Walk {
        Walk {
            unlink,
            warnings: Vec::new(),
        }
    }

    /// The children of the cache directory `dir`, sorted; none if it is missing, or is not a
    /// real directory (a symbolic link is not followed).
    pub fn children(&mut self, dir: &Path) -> Vec<PathBuf> {
        match fs::symlink_metadata(dir) {
            Err(error) if error.kind() == ErrorKind::NotFound => return Vec::new(),
            Ok(meta) if meta.file_type().is_symlink() => {
                self.link(dir);
                return Vec::new();
            }
            Ok(meta) if meta.is_dir() => {}
            _ => {
                self.warn(format!("skipped {}: not a directory", dir.display()));
                return Vec::new();
            }
        }
        let mut paths: Vec<PathBuf> = fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .collect();
        paths.sort();
        paths
    }

    /// The children of `dir` that are not symbolic links.
    pub fn plain_children(&mut self, dir: &Path) -> Vec<PathBuf> {
        let (links, plain): (Vec<PathBuf>, Vec<PathBuf>) = self
            .children(dir)
            .into_iter()
            .partition(|path| crate::fsutil::is_link(path));
        for link in links {
            self.link(&link);
        }
        plain
    }

    /// The plain children of every plain child of `dir` (the files or directories of a
    /// sharded directory).
    pub fn sharded(&mut self, dir: &Path) -> Vec<PathBuf> {
        let shards = self.plain_children(dir);
        shards
            .iter()
            .flat_map(|shard| self.plain_children(shard))
            .collect()
    }

    /// Deals with a symbolic link at `path` (where the cache keeps a directory of its own)
    /// before the cache writes there.
    pub fn guard(&mut self, path: &Path) {
        if crate::fsutil::is_link(path) {
            self.link(path);
        }
    }

    fn link(&mut self, path: &Path) {
        let shown = path.display();
        if self.unlink && fs::remove_file(path).is_ok() {
            self.warn(format!(
                "removed the symbolic link {shown} (not what it points to)"
            ));
        } else {
            self.warn(format!(
                "skipped the symbolic link {shown}: tpuc never follows links out of the cache"
            ));
        }
    }

    fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }
}
