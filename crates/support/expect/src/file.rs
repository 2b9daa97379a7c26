//! [`expect_file`]: an output compared with the file that holds what it should be.

use std::path::Path;

use crate::bless::blessing;
use crate::diff::line_diff;

/// Compares `actual` with the contents of `path` and panics with a line diff when they differ
/// (or the file is missing). With `BLESS=1`, writes `actual` to `path` instead (creating its
/// directory). Both sides end with exactly one newline where they end with any, so a snapshot
/// file always ends with a newline whatever the output.
#[track_caller]
pub fn expect_file(path: impl AsRef<Path>, actual: &str) {
    let path = path.as_ref();
    let actual = with_final_newline(actual);
    if blessing() {
        let current = std::fs::read_to_string(path).ok();
        if current.as_deref() != Some(actual.as_str()) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
            }
            std::fs::write(path, &actual)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        return;
    }
    let expected = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => panic!(
            "{}: {e}; run the test with BLESS=1 to create it from this output:\n{actual}",
            path.display()
        ),
    };
    if with_final_newline(&expected) != actual {
        panic!(
            "{} differs from the output (- expected, + actual); \
             BLESS=1 accepts the output:\n{}",
            path.display(),
            line_diff(&expected, &actual)
        );
    }
}

/// `text` ending with exactly one newline, unless it is empty.
fn with_final_newline(text: &str) -> String {
    let trimmed = text.trim_end_matches('\n');
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}\n")
    }
}
