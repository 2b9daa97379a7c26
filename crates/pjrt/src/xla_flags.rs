//! `XLA_FLAGS` checked before a plugin reads it. XLA parses the variable when a plugin
//! initialises and aborts the process on a flag it does not know (an `F0000 ... Unknown flag
//! in XLA_FLAGS` line and SIGABRT), so tpuc could not say what went wrong. The flags XLA_FLAGS
//! takes are the fields of XLA's `DebugOptions` message, whose protobuf descriptor every
//! plugin embeds (the serialized `xla.proto`): the field names read from the plugin's own file
//! are exactly the names that plugin accepts. (TPU flags such as `xla_tpu_*` belong in
//! `LIBTPU_INIT_ARGS`; XLA_FLAGS refuses them.)

use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;

use crate::error::{Error, Result};

/// The variable XLA reads its flags from.
pub const VARIABLE: &str = "XLA_FLAGS";

/// Fails, naming the flags, if `XLA_FLAGS` holds a flag the plugin at `path` cannot know.
pub(crate) fn check(path: &Path) -> Result<()> {
    let Some(value) = std::env::var_os(VARIABLE) else {
        return Ok(());
    };
    let value = value.to_string_lossy();
    let names = flag_names(&value);
    if names.is_empty() {
        return Ok(());
    }
    let Some(library) = map(path) else {
        return Ok(());
    };
    let Some(known) = debug_option_names(&library) else {
        return Ok(());
    };
    let unknown: Vec<String> = names
        .into_iter()
        .filter(|name| !known.contains(*name))
        .map(str::to_owned)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::UnknownXlaFlags {
        plugin: path.to_owned(),
        flags: unknown.iter().map(|name| format!("--{name}")).collect(),
        value: value.into_owned(),
    })
}

/// The flag names of an `XLA_FLAGS` value (`--xla_foo=1 --xla_bar` gives `xla_foo`,
/// `xla_bar`); none for a value XLA reads as a file name (not starting with `-`).
fn flag_names(value: &str) -> Vec<&str> {
    let value = value.trim();
    if !value.starts_with('-') {
        return Vec::new();
    }
    words(value)
        .into_iter()
        .filter_map(|word| {
            let name = word.trim_start_matches('-');
            let name = name.split_once('=').map_or(name, |(name, _)| name);
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Splits on whitespace outside single or double quotes, as XLA does.
fn words(value: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (i, c) in value.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    words.push(&value[s..i]);
                }
            }
            (None, _) => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        words.push(&value[s..]);
    }
    words
}

fn map(path: &Path) -> Option<memmap2::Mmap> {
    let file = File::open(path).ok()?;
    // SAFETY: the plugin libraries are read-only installed files; nothing in this process
    // writes them, and the map is only searched, then dropped.
    unsafe { memmap2::Mmap::map(&file) }.ok()
}

/// The field names of every `DebugOptions` message descriptor in the library whose fields are
/// XLA's (`xla_*`); `None` if it embeds none.
fn debug_option_names(library: &[u8]) -> Option<BTreeSet<String>> {
    const NAME: &[u8] = b"\x0a\x0cDebugOptions";
    let mut names = BTreeSet::new();
    for at in memchr::memmem::find_iter(library, NAME) {
        let fields = message_fields(&library[at + NAME.len()..]);
        if fields.first().is_some_and(|name| name.starts_with("xla_")) {
            names.extend(fields);
        }
    }
    (!names.is_empty()).then_some(names)
}

/// The names of the `field` entries (number 2) that follow a `DescriptorProto`'s name, which
/// protobuf serializes in field-number order: every consecutive field-2 record, each a
/// `FieldDescriptorProto` starting with its `name` (number 1).
fn message_fields(mut bytes: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    while let Some((&0x12, rest)) = bytes.split_first() {
        let Some((length, rest)) = varint(rest) else {
            break;
        };
        let Some(field) = usize::try_from(length).ok().and_then(|n| rest.get(..n)) else {
            break;
        };
        if let Some((&0x0a, field)) = field.split_first()
            && let Some((length, field)) = varint(field)
            && let Some(name) = usize::try_from(length).ok().and_then(|n| field.get(..n))
            && let Ok(name) = std::str::from_utf8(name)
        {
            names.push(name.to_owned());
        }
        bytes = &rest[field.len()..];
    }
    names
}

/// A protobuf varint and the bytes after it.
fn varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_names_are_read_as_xla_reads_them() {
        assert_eq!(
            flag_names(" --xla_a=1 --xla_b  --xla_c='x y' -xla_d=\"p q\""),
            ["xla_a", "xla_b", "xla_c", "xla_d"]
        );
        assert!(flag_names("/path/to/flagfile").is_empty());
        assert!(flag_names("").is_empty());
    }

    #[test]
    fn debug_options_fields_are_read_from_the_descriptor() {
        // `DescriptorProto { name: "DebugOptions", field: [{name: "xla_a"}, {name: "xla_bc"}],
        // nested_type: [...] }` as protoc serializes it, between other bytes.
        let mut library = b"\x7fELF\0junk\x0a\x0cDebugOptions".to_vec();
        for name in ["xla_a", "xla_bc"] {
            let field = [&[0x0a, name.len() as u8][..], name.as_bytes(), b"\x18\x01"].concat();
            library.extend([0x12, field.len() as u8]);
            library.extend(field);
        }
        library.extend(b"\x1a\x03\x0a\x01x\0more");
        // Another program's DebugOptions (TensorFlow's) is not XLA's.
        library.extend(b"\x0a\x0cDebugOptions\x12\x06\x0a\x04opts");
        let names = debug_option_names(&library).unwrap();
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["xla_a", "xla_bc"]);
        assert_eq!(debug_option_names(b"no descriptor here"), None);
    }
}
