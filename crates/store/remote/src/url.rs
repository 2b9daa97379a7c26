//! `s3://bucket/prefix` locations.

use std::fmt;

use object_store::path::Path;

use crate::error::RemoteError;

/// Where the shared tier lives: a bucket and a key prefix inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteUrl {
    pub bucket: String,
    pub prefix: Path,
}

impl RemoteUrl {
    pub fn parse(url: &str) -> Result<Self, RemoteError> {
        let invalid = |reason: &str| RemoteError::InvalidUrl {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| invalid("the scheme must be `s3://`"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if !is_bucket_name(bucket) {
            return Err(invalid(
                "a bucket name has 3 to 63 characters: lowercase letters, digits, `.` and `-`, \
                 starting and ending with a letter or digit",
            ));
        }
        let prefix = relative_path(prefix.strip_suffix('/').unwrap_or(prefix))
            .ok_or_else(|| invalid("the prefix must not contain empty, `.` or `..` segments"))?;
        Ok(RemoteUrl {
            bucket: bucket.to_owned(),
            prefix,
        })
    }
}

impl fmt::Display for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.prefix.as_ref().is_empty() {
            write!(f, "s3://{}", self.bucket)
        } else {
            write!(f, "s3://{}/{}", self.bucket, self.prefix)
        }
    }
}

/// `text` as a path of `/`-separated segments, if it is exactly that: no empty, `.` or `..`
/// segment, no leading or trailing `/` (the empty string is the empty path).
pub(crate) fn relative_path(text: &str) -> Option<Path> {
    let path = Path::parse(text).ok()?;
    (path.as_ref() == text).then_some(path)
}

fn is_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let inner_ok =
        |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'.' || *b == b'-';
    let edge_ok = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    (3..=63).contains(&bytes.len())
        && bytes.iter().all(inner_ok)
        && bytes.first().is_some_and(edge_ok)
        && bytes.last().is_some_and(edge_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bucket_and_prefix() {
        let cases = [
            ("s3://team-cache", "team-cache", ""),
            ("s3://team-cache/", "team-cache", ""),
            ("s3://team-cache/tpuc", "team-cache", "tpuc"),
            ("s3://team-cache/tpuc/v1/", "team-cache", "tpuc/v1"),
        ];
        for (url, bucket, prefix) in cases {
            let parsed = RemoteUrl::parse(url).unwrap();
            assert_eq!(parsed.bucket, bucket, "{url}");
            assert_eq!(parsed.prefix.as_ref(), prefix, "{url}");
        }
        assert_eq!(
            RemoteUrl::parse("s3://b12/x/y/").unwrap().to_string(),
            "s3://b12/x/y"
        );
    }

    #[test]
    fn rejects_malformed_urls() {
        for url in [
            "team-cache/tpuc",
            "gs://team-cache",
            "s3://",
            "s3://ab",
            "s3://Team",
            "s3://-team",
            "s3://team//x",
            "s3://team/a/../b",
        ] {
            let error = RemoteUrl::parse(url).unwrap_err();
            assert!(
                matches!(error, RemoteError::InvalidUrl { .. }),
                "{url}: {error:?}"
            );
        }
    }
}
