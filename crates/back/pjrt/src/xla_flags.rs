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

/// Fails, naming the flags, if `XLA_FLAGS` holds a flag the plugin at `path` cannot know, or
/// names a flag file that cannot be read.
pub(crate) fn check(path: &Path) -> Result<()> {
    let Some(value) = std::env::var_os(VARIABLE) else {
        return Ok(());
    };
    let value = value.to_string_lossy().into_owned();
    let text = match flag_file(&value) {
        None => value.clone(),
        Some(file) => std::fs::read_to_string(file).map_err(|error| Error::XlaFlagsFile {
            file: file.into(),
            reason: error.to_string(),
        })?,
    };
    let flags = words(&text);
    if flags.is_empty() {
        return Ok(());
    }
    let Some(library) = map(path) else {
        return Ok(());
    };
    let Some(known) = debug_option_names(&library) else {
        return Ok(());
    };
    let unknown: Vec<String> = flags
        .into_iter()
        .filter(|flag| !flag_name(flag).is_some_and(|name| known.contains(name)))
        .map(|flag| {
            flag.split_once('=')
                .map_or(flag, |(flag, _)| flag)
                .to_owned()
        })
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let from = match flag_file(&value) {
        Some(file) => format!("names the flag file `{file}`"),
        None => format!("is `{value}`"),
    };
    Err(Error::UnknownXlaFlags {
        plugin: path.to_owned(),
        flags: unknown,
        help: format!(
            "XLA_FLAGS {from}; remove or correct the unknown flags. It takes `--name=value` \
             flags named after the fields of the plugin's XLA DebugOptions, which differ \
             between XLA versions; libtpu's own flags (`--xla_tpu_*`, ...) go in LIBTPU_INIT_ARGS"
        ),
    })
}

/// The file an `XLA_FLAGS` value names, if XLA reads it as one: a value that does not start
/// with `-` (XLA then reads its flags from that file).
fn flag_file(value: &str) -> Option<&str> {
    let value = value.trim();
    (!value.is_empty() && !value.starts_with('-')).then_some(value)
}

/// The name of a `--name` or `--name=value` flag; `None` for a word XLA does not read as a
/// flag (one dash, no name).
fn flag_name(word: &str) -> Option<&str> {
    let name = word.strip_prefix("--")?;
    let name = name.split_once('=').map_or(name, |(name, _)| name);
    (!name.is_empty()).then_some(name)
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
    fn flags_are_read_as_xla_reads_them() {
        let flags = words(" --xla_a=1 --xla_b  --xla_c='x y' -xla_d=\"p q\"\n--=3");
        assert_eq!(
            flags,
            [
                "--xla_a=1",
                "--xla_b",
                "--xla_c='x y'",
                "-xla_d=\"p q\"",
                "--=3"
            ]
        );
        let names: Vec<Option<&str>> = flags.iter().map(|flag| flag_name(flag)).collect();
        assert_eq!(
            names,
            [Some("xla_a"), Some("xla_b"), Some("xla_c"), None, None]
        );
        assert_eq!(flag_file(" /path/to/flags "), Some("/path/to/flags"));
        assert_eq!(flag_file("--xla_a"), None);
        assert_eq!(flag_file("-xla_a"), None);
        assert_eq!(flag_file(" "), None);
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
