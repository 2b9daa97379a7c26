//! A readable line diff of an expected and an actual text.

use std::fmt::Write;

/// Above this many line pairs the diff is not aligned, only the first difference shown.
const MAX_ALIGNED: usize = 16_000_000;
/// Unchanged lines shown around each change.
const CONTEXT: usize = 3;

/// `-` expected, `+` actual and ` ` common lines around each change, with `@@ expected line N` headers
/// (line numbers of the expected text); empty when the texts are equal.
pub fn line_diff(expected: &str, actual: &str) -> String {
    if expected == actual {
        return String::new();
    }
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    if old == new {
        return "(the texts differ only in line endings or a trailing newline)\n".to_owned();
    }
    if old.len().saturating_mul(new.len()) > MAX_ALIGNED {
        return first_difference(&old, &new);
    }
    render(&old, &new, &align(&old, &new))
}

#[derive(Clone, Copy, PartialEq)]
enum Edit {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
}

/// The edits of a longest common subsequence of lines.
fn align(old: &[&str], new: &[&str]) -> Vec<Edit> {
    let (n, m) = (old.len(), new.len());
    // common[i][j]: length of the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[at(i, j)] = if old[i] == new[j] {
                common[at(i + 1, j + 1)] + 1
            } else {
                common[at(i + 1, j)].max(common[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut edits = Vec::new();
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            edits.push(Edit::Same(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || common[at(i + 1, j)] >= common[at(i, j + 1)]) {
            edits.push(Edit::Removed(i));
            i += 1;
        } else {
            edits.push(Edit::Added(j));
            j += 1;
        }
    }
    edits
}

fn render(old: &[&str], new: &[&str], edits: &[Edit]) -> String {
    let changed: Vec<usize> = (0..edits.len())
        .filter(|&k| !matches!(edits[k], Edit::Same(..)))
        .collect();
    let mut out = String::new();
    let mut shown_until = 0;
    for &k in &changed {
        let start = k.saturating_sub(CONTEXT).max(shown_until);
        if start > shown_until || shown_until == 0 {
            let line = edits[start..]
                .iter()
                .find_map(|edit| match edit {
                    Edit::Same(i, _) | Edit::Removed(i) => Some(i + 1),
                    Edit::Added(_) => None,
                })
                .unwrap_or(old.len() + 1);
            let _ = writeln!(out, "@@ expected line {line}");
        }
        let end = (k + CONTEXT + 1).min(edits.len());
        for edit in &edits[start.max(shown_until)..end] {
            let _ = match *edit {
                Edit::Same(i, _) => writeln!(out, "  {}", old[i]),
                Edit::Removed(i) => writeln!(out, "- {}", old[i]),
                Edit::Added(j) => writeln!(out, "+ {}", new[j]),
            };
        }
        shown_until = end;
    }
    out
}

fn first_difference(old: &[&str], new: &[&str]) -> String {
    let line = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let show = |lines: &[&str]| {
        lines
            .get(line)
            .copied()
            .unwrap_or("(end of text)")
            .to_owned()
    };
    format!(
        "first difference at line {} (texts too long to align):\n- {}\n+ {}\n",
        line + 1,
        show(old),
        show(new)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(line_diff("a\nb\n", "a\nb\n"), "");
    }

    #[test]
    fn a_changed_line_is_shown_with_its_context() {
        let diff = line_diff(
            "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
            "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
        );
        assert_eq!(
            diff,
            "@@ expected line 2\n  2\n  3\n  4\n- 5\n+ five\n  6\n  7\n  8\n"
        );
    }

    #[test]
    fn added_and_removed_lines_at_the_ends() {
        assert_eq!(
            line_diff("a\nb\n", "b\nc\n"),
            "@@ expected line 1\n- a\n  b\n+ c\n"
        );
    }

    #[test]
    fn a_missing_trailing_newline_is_named() {
        assert!(line_diff("a\n", "a").contains("trailing newline"));
    }
}
