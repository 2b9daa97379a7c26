//! Quoting archive text in diagnostics: never more than a screenful, however long the text.

use std::borrow::Cow;

/// The most characters of archive text a diagnostic quotes.
pub const MAX_QUOTED_CHARS: usize = 160;

/// `text` as a diagnostic quotes it: whole if it has at most [`MAX_QUOTED_CHARS`] characters,
/// else its beginning, an ellipsis and how long it was, e.g. `12345…` (100000 characters).
pub fn quoted(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        None => Cow::Borrowed(text),
        Some((end, _)) => {
            let head_end = text
                .char_indices()
                .nth(MAX_QUOTED_CHARS - 40)
                .map_or(end, |(at, _)| at);
            Cow::Owned(format!(
                "{}… ({} characters)",
                &text[..head_end],
                text.chars().count()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole_and_long_text_is_cut_with_its_length() {
        assert_eq!(quoted("s0 + 1"), "s0 + 1");
        let exact = "x".repeat(MAX_QUOTED_CHARS);
        assert_eq!(quoted(&exact), exact);
        let long = "9".repeat(100_000);
        let shown = quoted(&long);
        assert!(shown.chars().count() <= MAX_QUOTED_CHARS, "{shown}");
        assert!(shown.starts_with("999") && shown.ends_with("… (100000 characters)"));
        // Cut at a character boundary, counted in characters.
        let wide = "é".repeat(1000);
        assert!(quoted(&wide).ends_with("… (1000 characters)"));
    }
}
