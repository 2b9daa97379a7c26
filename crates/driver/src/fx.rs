//! FX graph values written the way torch prints them: `%x`, `[%a, None]`, `2.0`, `"tanh"`,
//! `torch.float32`. Shared by every command that shows graph nodes.

use std::fmt::Write;

use tpuc_pt2::DType;
use tpuc_pt2::schema::{
    Argument, OptionalTensorArgument, SymBoolArgument, SymFloatArgument, SymIntArgument,
};

/// The compact text of one node argument.
pub fn argument(arg: &Argument) -> String {
    match arg {
        Argument::AsNone(_) => "None".to_owned(),
        Argument::AsTensor(t) => value(&t.name),
        Argument::AsTensors(ts) => list(ts.iter().map(|t| value(&t.name))),
        Argument::AsInt(i) => i.to_string(),
        Argument::AsInts(is) => list(is.iter().map(i64::to_string)),
        Argument::AsFloat(f) => float(f.0),
        Argument::AsFloats(fs) => list(fs.iter().map(|f| float(f.0))),
        Argument::AsString(s) => format!("{s:?}"),
        Argument::AsStrings(ss) => list(ss.iter().map(|s| format!("{s:?}"))),
        Argument::AsSymInt(s) => sym_int(s),
        Argument::AsSymInts(ss) => list(ss.iter().map(sym_int)),
        Argument::AsScalarType(code) => scalar_type(*code),
        Argument::AsMemoryFormat(code) => memory_format(*code),
        Argument::AsLayout(code) => layout(*code),
        Argument::AsDevice(device) => match device.index {
            Some(index) => format!("{}:{index}", device.kind),
            None => device.kind.clone(),
        },
        Argument::AsBool(b) => boolean(*b),
        Argument::AsBools(bs) => list(bs.iter().map(|b| boolean(*b))),
        Argument::AsSymBool(s) => sym_bool(s),
        Argument::AsSymBools(ss) => list(ss.iter().map(sym_bool)),
        Argument::AsGraph(g) => format!("<graph {}>", g.name),
        Argument::AsOptionalTensors(ts) => list(ts.iter().map(optional_tensor)),
        Argument::AsOptionalTensor(t) => optional_tensor(t),
        Argument::AsCustomObj(obj) => format!("<{} {}>", obj.class_fqn, value(&obj.name)),
        Argument::AsOperator(op) => op.clone(),
        Argument::AsSymFloat(s) => sym_float(s),
        Argument::AsSymFloats(ss) => list(ss.iter().map(sym_float)),
        Argument::AsComplex(c) => format!("complex({}, {})", float(c.real.0), float(c.imag.0)),
        Argument::AsNestedTensors(groups) => list(
            groups
                .iter()
                .map(|g| list(g.iter().map(|t| value(&t.name)))),
        ),
        Argument::AsIntLists(lists) => {
            list(lists.iter().map(|l| list(l.iter().map(i64::to_string))))
        }
        Argument::AsFloatLists(lists) => {
            list(lists.iter().map(|l| list(l.iter().map(|f| float(f.0)))))
        }
        Argument::AsStringToArgument(map) => {
            let mut out = String::from("{");
            for (i, (key, arg)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{key:?}: {}", argument(arg));
            }
            out.push('}');
            out
        }
        Argument::Unknown(key) => format!("<unknown {key}>"),
    }
}

/// A use of a graph value.
pub fn value(name: &str) -> String {
    format!("%{name}")
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

fn float(f: f64) -> String {
    if f.is_nan() {
        "nan".to_owned()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else if f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

fn boolean(b: bool) -> String {
    if b { "True" } else { "False" }.to_owned()
}

fn sym_int(s: &SymIntArgument) -> String {
    match s {
        SymIntArgument::AsName(name) => value(name),
        SymIntArgument::AsInt(i) => i.to_string(),
        SymIntArgument::Unknown(key) => format!("<unknown {key}>"),
    }
}

fn sym_bool(s: &SymBoolArgument) -> String {
    match s {
        SymBoolArgument::AsName(name) => value(name),
        SymBoolArgument::AsBool(b) => boolean(*b),
        SymBoolArgument::Unknown(key) => format!("<unknown {key}>"),
    }
}

fn sym_float(s: &SymFloatArgument) -> String {
    match s {
        SymFloatArgument::AsName(name) => value(name),
        SymFloatArgument::AsFloat(f) => float(f.0),
        SymFloatArgument::Unknown(key) => format!("<unknown {key}>"),
    }
}

fn optional_tensor(t: &OptionalTensorArgument) -> String {
    match t {
        OptionalTensorArgument::AsTensor(t) => value(&t.name),
        OptionalTensorArgument::AsNone(_) => "None".to_owned(),
        OptionalTensorArgument::Unknown(key) => format!("<unknown {key}>"),
    }
}

fn scalar_type(code: i64) -> String {
    match DType::from_code(code) {
        Some(dtype) => format!("torch.{}", dtype.torch_name()),
        None => format!("<dtype {code}>"),
    }
}

fn memory_format(code: i64) -> String {
    let name = match code {
        1 => "contiguous_format",
        2 => "channels_last",
        3 => "channels_last_3d",
        4 => "preserve_format",
        _ => return format!("<memory_format {code}>"),
    };
    format!("torch.{name}")
}

fn layout(code: i64) -> String {
    match code {
        7 => "torch.strided".to_owned(),
        _ => format!("<layout {code}>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_arguments_like_torch() {
        let cases = [
            (r#"{"as_tensor": {"name": "x"}}"#, "%x"),
            (r#"{"as_none": true}"#, "None"),
            (r#"{"as_float": 2.0}"#, "2.0"),
            (r#"{"as_float": "-Infinity"}"#, "-inf"),
            (r#"{"as_float": 0.125}"#, "0.125"),
            (r#"{"as_ints": [1, -1]}"#, "[1, -1]"),
            (r#"{"as_string": "tanh"}"#, "\"tanh\""),
            (r#"{"as_bool": true}"#, "True"),
            (r#"{"as_scalar_type": 13}"#, "torch.bfloat16"),
            (r#"{"as_scalar_type": 99}"#, "<dtype 99>"),
            (
                r#"{"as_sym_ints": [{"as_name": "sym_size_int_1"}, {"as_int": -1}]}"#,
                "[%sym_size_int_1, -1]",
            ),
            (
                r#"{"as_optional_tensors": [{"as_tensor": {"name": "i"}}, {"as_none": true}]}"#,
                "[%i, None]",
            ),
            (r#"{"as_device": {"type": "cpu", "index": null}}"#, "cpu"),
            (r#"{"as_new_kind": 3}"#, "<unknown as_new_kind>"),
        ];
        for (json, expected) in cases {
            let arg: Argument = serde_json::from_str(json).unwrap();
            assert_eq!(argument(&arg), expected, "{json}");
        }
    }
}
