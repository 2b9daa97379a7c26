//! Naming an entry by a unique prefix of its key, as git names commits.

use crate::error::{CacheError, Result};
use crate::key::Key;
use crate::store::Cache;
use crate::walk::Walk;

/// The fewest hex digits a key prefix may have.
pub const MIN_PREFIX: usize = 4;

/// How many candidates an ambiguous prefix lists.
const LISTED: usize = 8;

impl Cache {
    /// The key of the one entry whose key starts with `text` (a whole key is taken as is, even
    /// if no entry has it). An error if `text` is not hex, shorter than [`MIN_PREFIX`] digits,
    /// or starts no key or several.
    pub fn resolve(&self, text: &str) -> Result<Key> {
        let prefix = text.trim().to_ascii_lowercase();
        if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) || prefix.len() > 64
        {
            return Err(CacheError::BadKey(format!(
                "`{text}` is not a cache key or key prefix (hex digits)"
            )));
        }
        if prefix.len() == 64 {
            return prefix.parse();
        }
        if prefix.len() < MIN_PREFIX {
            return Err(CacheError::KeyPrefix {
                message: format!(
                    "`{text}` is too short to name a cache entry ({} digits)",
                    prefix.len()
                ),
                help: format!(
                    "give at least {MIN_PREFIX} hex digits of the key, as `tpuc cache ls` prints it"
                ),
            });
        }
        self.check_layout()?;
        let mut matches: Vec<Key> = self
            .entry_dirs(&mut Walk::new(false))
            .into_iter()
            .map(|(key, _)| key)
            .filter(|key| key.to_string().starts_with(&prefix))
            .collect();
        matches.sort();
        match matches.as_slice() {
            [key] => Ok(*key),
            [] => Err(CacheError::BadKey(format!(
                "no cache entry's key starts with `{prefix}` in {}",
                self.root().display()
            ))),
            many => {
                let mut listed: Vec<String> = many
                    .iter()
                    .take(LISTED)
                    .map(|key| format!("  {key}"))
                    .collect();
                if many.len() > LISTED {
                    listed.push(format!("  and {} more", many.len() - LISTED));
                }
                Err(CacheError::KeyPrefix {
                    message: format!(
                        "`{prefix}` is ambiguous: {} cache entries' keys start with it:\n{}",
                        many.len(),
                        listed.join("\n")
                    ),
                    help: "give more digits of the key".to_owned(),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Cache, CacheError, Mode};

    #[test]
    fn malformed_and_short_prefixes_are_refused_before_the_cache_is_read() {
        let cache = Cache::open("/nonexistent/tpuc-cache", Mode::ReadOnly);
        for text in ["", "xyz1", "12 4"] {
            assert!(
                matches!(cache.resolve(text), Err(CacheError::BadKey(_))),
                "{text}"
            );
        }
        assert!(matches!(
            cache.resolve("abc"),
            Err(CacheError::KeyPrefix { .. })
        ));
        let whole = "ab".repeat(32);
        assert_eq!(cache.resolve(&whole).unwrap().to_string(), whole);
    }
}
