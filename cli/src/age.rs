//! How long ago something happened, as people say it: `3 minutes ago`.

use std::time::{Duration, SystemTime};

/// The time from `then` to `now` in the largest whole unit: `just now`, `42 seconds ago`,
/// `1 minute ago`, `5 hours ago`, `3 days ago`; a time after `now` is `in the future`.
pub fn ago(then: SystemTime, now: SystemTime) -> String {
    let Ok(elapsed) = now.duration_since(then) else {
        return "in the future".to_owned();
    };
    describe(elapsed)
}

fn describe(elapsed: Duration) -> String {
    const UNITS: [(u64, &str); 5] = [
        (365 * 86_400, "year"),
        (30 * 86_400, "month"),
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
    ];
    let seconds = elapsed.as_secs();
    if seconds < 1 {
        return "just now".to_owned();
    }
    let (size, unit) = UNITS
        .iter()
        .copied()
        .find(|&(size, _)| seconds >= size)
        .unwrap_or((1, "second"));
    let count = seconds / size;
    format!("{count} {unit}{} ago", if count == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_use_the_largest_whole_unit() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let cases = [
            (0, "just now"),
            (1, "1 second ago"),
            (59, "59 seconds ago"),
            (60, "1 minute ago"),
            (3 * 60 + 59, "3 minutes ago"),
            (2 * 3600, "2 hours ago"),
            (86_400, "1 day ago"),
            (45 * 86_400, "1 month ago"),
            (800 * 86_400, "2 years ago"),
        ];
        for (seconds, text) in cases {
            assert_eq!(ago(now - Duration::from_secs(seconds), now), text);
        }
        assert_eq!(ago(now + Duration::from_secs(5), now), "in the future");
    }
}
