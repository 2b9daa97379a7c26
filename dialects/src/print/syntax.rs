//! MLIR spellings of literals, attributes, types and locations shared by both printers.

use std::fmt::Write;

use crate::attr::{Attribute, Mesh, TensorSharding};
use crate::dense::{DenseElements, ElementValue, FloatBits, decode_float, encode_f64};
use crate::location::Location;
use crate::types::{ElementType, TensorType, Type};

/// Dense constants with more elements than this print as a hex string, as MLIR does.
const HEX_THRESHOLD: u64 = 100;

/// A quoted MLIR string literal.
pub(crate) fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for byte in text.bytes() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(byte as char),
            _ => {
                let _ = write!(out, "\\{byte:02X}");
            }
        }
    }
    out.push('"');
    out
}

fn is_bare_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// `@name`, quoted when it is not a bare identifier.
pub(crate) fn symbol(name: &str) -> String {
    if is_bare_identifier(name) {
        format!("@{name}")
    } else {
        format!("@{}", string(name))
    }
}

/// An attribute name: bare when possible, quoted otherwise.
pub(crate) fn attr_name(name: &str) -> String {
    if is_bare_identifier(name) {
        name.to_string()
    } else {
        string(name)
    }
}

pub(crate) fn i64_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `array<i64: 1, 2>`
pub(crate) fn i64_array(values: &[i64]) -> String {
    if values.is_empty() {
        return "array<i64>".to_string();
    }
    let items: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("array<i64: {}>", items.join(", "))
}

/// `array<i1: true, false>`
pub(crate) fn bool_array(values: &[bool]) -> String {
    if values.is_empty() {
        return "array<i1>".to_string();
    }
    let items: Vec<String> = values.iter().map(ToString::to_string).collect();
    format!("array<i1: {}>", items.join(", "))
}

/// A rectangular `dense<[[..], ..]> : tensor<NxMxi64>` of rows (short rows padded with -1).
pub(crate) fn i64_matrix(rows: &[Vec<i64>]) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let ty = TensorType::of(&[rows.len() as u64, width as u64], ElementType::I64);
    let values: Vec<i64> = rows
        .iter()
        .flat_map(|row| (0..width).map(|i| row.get(i).copied().unwrap_or(-1)))
        .collect();
    match DenseElements::from_i64s(&ty, &values) {
        Ok(data) => format!("{} : {ty}", dense(&ty, &data)),
        Err(_) => format!("dense<> : {ty}"),
    }
}

pub(crate) fn pairs_matrix(pairs: &[(i64, i64)]) -> String {
    let rows: Vec<Vec<i64>> = pairs.iter().map(|&(a, b)| vec![a, b]).collect();
    if rows.is_empty() {
        return format!("dense<> : {}", TensorType::of(&[0, 2], ElementType::I64));
    }
    i64_matrix(&rows)
}

/// A type list: `a, b` (no parentheses).
pub(crate) fn types(types: &[Type]) -> String {
    types
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `(a, b) -> c` or `(a) -> (b, c)`.
pub(crate) fn function_type(inputs: &[Type], results: &[Type]) -> String {
    let results = if results.len() == 1 {
        results[0].to_string()
    } else {
        format!("({})", types(results))
    };
    format!("({}) -> {results}", types(inputs))
}

/// A float in MLIR's style: `1.000000e+00` when six digits round-trip, else the shortest
/// round-tripping decimal, else (NaN, infinities) the raw bits in hex.
pub(crate) fn float(element: ElementType, bits: FloatBits) -> String {
    let Some(value) = bits.value else {
        let width = element.bit_width() as usize / 4;
        return format!("0x{:0width$X}", bits.bits);
    };
    let round_trips = |text: &str| {
        text.parse::<f64>().is_ok_and(|parsed| {
            let mut a = Vec::new();
            let mut b = Vec::new();
            encode_f64(element, parsed, &mut a);
            encode_f64(element, value, &mut b);
            a == b && (parsed != 0.0 || value.is_sign_negative() == parsed.is_sign_negative())
        })
    };
    let six = mlir_exponent(&format!("{value:.6e}"));
    if round_trips(&six) {
        return six;
    }
    let shortest = if element == ElementType::F32 {
        format!("{:e}", value as f32)
    } else {
        format!("{value:e}")
    };
    let shortest = mlir_exponent(&shortest);
    if round_trips(&shortest) {
        shortest
    } else {
        let width = element.bit_width() as usize / 4;
        format!("0x{:0width$X}", bits.bits)
    }
}

/// Turns Rust's `1.5e-3` into MLIR's `1.5e-03`, and `1e0` into `1.0e+00`.
fn mlir_exponent(rust: &str) -> String {
    let (mantissa, exponent) = rust.split_once('e').unwrap_or((rust, "0"));
    let mantissa = if mantissa.contains('.') {
        mantissa.to_string()
    } else {
        format!("{mantissa}.0")
    };
    let (sign, digits) = match exponent.strip_prefix('-') {
        Some(digits) => ('-', digits),
        None => ('+', exponent),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// A float attribute value of type `element` (`1.000000e-05`).
pub(crate) fn float_value(element: ElementType, value: f64) -> String {
    let mut bytes = Vec::new();
    encode_f64(element, value, &mut bytes);
    let raw = bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &byte| (acc << 8) | u64::from(byte));
    float(element, decode_float(element, raw))
}

fn element_literal(element: ElementType, value: ElementValue) -> String {
    match value {
        ElementValue::Bool(b) => b.to_string(),
        ElementValue::Signed(v) => v.to_string(),
        ElementValue::Unsigned(v) => v.to_string(),
        ElementValue::Float(bits) => float(element, bits),
        ElementValue::Complex(re, im) => {
            let part = element.complex_part().unwrap_or(ElementType::F32);
            format!("({},{})", float(part, re), float(part, im))
        }
    }
}

/// The `dense<...>` part of a dense elements attribute (without `: type`).
pub(crate) fn dense(ty: &TensorType, data: &DenseElements) -> String {
    let element = ty.element;
    if !data.fits(ty) {
        // Only unverified IR gets here; print the raw bytes rather than guess a shape.
        return hex(data.bytes());
    }
    if data.is_splat() {
        return format!(
            "dense<{}>",
            element_literal(element, data.value(element, 0))
        );
    }
    let count = data.stored_len(element);
    if count == 0 {
        return "dense<>".to_string();
    }
    let hex_ok = element.bit_width() >= 8;
    if hex_ok && count as u64 > HEX_THRESHOLD {
        return hex(data.bytes());
    }
    let shape: Vec<usize> = ty
        .static_shape()
        .unwrap_or_default()
        .into_iter()
        .map(|d| d as usize)
        .collect();
    let mut out = String::from("dense<");
    let mut index = 0;
    nested(&mut out, &shape, &mut |out| {
        out.push_str(&element_literal(element, data.value(element, index)));
        index += 1;
    });
    out.push('>');
    out
}

/// `dense<"0x...">`: the raw little-endian bytes.
fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2 + 12);
    out.push_str("dense<\"0x");
    for byte in bytes {
        let _ = write!(out, "{byte:02X}");
    }
    out.push_str("\">");
    out
}

fn nested(out: &mut String, shape: &[usize], leaf: &mut dyn FnMut(&mut String)) {
    match shape.split_first() {
        None => leaf(out),
        Some((&size, rest)) => {
            out.push('[');
            for i in 0..size {
                if i > 0 {
                    out.push_str(", ");
                }
                nested(out, rest, leaf);
            }
            out.push(']');
        }
    }
}

fn sharding_body(sharding: &TensorSharding) -> String {
    let dims: Vec<String> = sharding
        .dims
        .iter()
        .map(|dim| {
            let mut items: Vec<String> = dim.axes.iter().map(|a| string(a)).collect();
            if dim.is_open {
                items.push("?".to_string());
            }
            let mut text = format!("{{{}}}", items.join(", "));
            if let Some(p) = dim.priority {
                let _ = write!(text, "p{p}");
            }
            text
        })
        .collect();
    let mut text = format!("{}, [{}]", symbol(&sharding.mesh), dims.join(", "));
    if !sharding.replicated.is_empty() {
        let axes: Vec<String> = sharding.replicated.iter().map(|a| string(a)).collect();
        let _ = write!(text, ", replicated={{{}}}", axes.join(", "));
    }
    text
}

/// `<@mesh, [{"x"}, {}]>`, the form `sdy.sharding_constraint` prints inline.
pub(crate) fn sharding_inline(sharding: &TensorSharding) -> String {
    format!("<{}>", sharding_body(sharding))
}

/// `#sdy.sharding<@mesh, [{"x"}, {}]>`
pub(crate) fn sharding(sharding: &TensorSharding) -> String {
    format!("#sdy.sharding<{}>", sharding_body(sharding))
}

/// `<["x"=2, "y"=4]>`
pub(crate) fn mesh_body(mesh: &Mesh) -> String {
    let axes: Vec<String> = mesh
        .axes
        .iter()
        .map(|axis| format!("{}={}", string(&axis.name), axis.size))
        .collect();
    format!("<[{}]>", axes.join(", "))
}

pub(crate) fn attribute(attr: &Attribute) -> String {
    match attr {
        Attribute::Unit => "unit".to_string(),
        Attribute::Bool(b) => b.to_string(),
        Attribute::Int { value, ty } => format!("{value} : {ty}"),
        Attribute::Float { value, ty } => format!("{} : {ty}", float_value(*ty, *value)),
        Attribute::String(s) => string(s),
        Attribute::Symbol(s) => symbol(s),
        Attribute::Array(items) => {
            let items: Vec<String> = items.iter().map(attribute).collect();
            format!("[{}]", items.join(", "))
        }
        Attribute::I64Array(values) => i64_array(values),
        Attribute::Dict(attrs) => dict(attrs.iter().map(|(n, v)| (attr_name(n), attribute(v)))),
        Attribute::Dense { ty, value } => format!("{} : {ty}", dense(ty, value)),
        Attribute::Sharding(s) => sharding(s),
        Attribute::ShardingPerValue(values) => {
            let items: Vec<String> = values.iter().map(sharding_inline).collect();
            format!("#sdy.sharding_per_value<[{}]>", items.join(", "))
        }
        Attribute::Raw(text) => text.clone(),
    }
}

/// `{a = 1, b}`: unit attributes print as their bare name.
pub(crate) fn dict(entries: impl IntoIterator<Item = (String, String)>) -> String {
    let items: Vec<String> = entries
        .into_iter()
        .map(|(name, value)| {
            if value == "unit" {
                name
            } else {
                format!("{name} = {value}")
            }
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// The inside of `loc(...)`.
pub(crate) fn location_body(location: &Location) -> String {
    match location {
        Location::Unknown => "unknown".to_string(),
        Location::FileLineCol { file, line, col } => format!("{}:{line}:{col}", string(file)),
        Location::Name { name, child } => match child {
            Some(child) => format!("{}({})", string(name), location_body(child)),
            None => string(name),
        },
        Location::Fused(locations) => {
            let items: Vec<String> = locations.iter().map(location_body).collect();
            format!("fused[{}]", items.join(", "))
        }
    }
}
