//! The `BLESS` switch.

/// Whether expectations are being rewritten: `BLESS` is set to anything but empty or `0`.
pub fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|value| !value.is_empty() && value != "0")
}
