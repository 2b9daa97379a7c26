//! ATen operator signatures, as `native_functions.yaml` writes them
//! (`linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor`), parsed into argument
//! names, types and defaults. torch.export serializes only the arguments a call passed, so the
//! defaults here fill in the rest.

use tpuc_pt2::schema::{Argument, Float};

/// The base type of a schema argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BaseType {
    Tensor,
    /// `int` and `SymInt`.
    Int,
    Float,
    Bool,
    Scalar,
    Str,
    ScalarType,
    Layout,
    Device,
    MemoryFormat,
    Generator,
    /// Anything else (`Dimname`, `Storage`, ...): passed through untouched.
    Other,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ArgSchema {
    pub name: String,
    pub ty: BaseType,
    /// `int[2]` has `Some(Some(2))`, `Tensor[]` has `Some(None)`.
    pub list: Option<Option<usize>>,
    pub optional: bool,
    /// Written by the op (`Tensor(a!)`).
    pub mutated: bool,
    /// The alias set of the annotation (`a` in `Tensor(a!)` and `Tensor(a)`).
    pub alias: Option<String>,
    pub keyword_only: bool,
    /// The default, as the argument torch would have serialized.
    pub default: Option<Argument>,
}

/// A parsed signature.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OpSchema {
    /// `aten`, or the library of `torchvision::roi_align`.
    pub namespace: String,
    /// `add`
    pub name: String,
    /// `Tensor`, or `default` when the signature has no overload name.
    pub overload: String,
    pub args: Vec<ArgSchema>,
    pub returns: usize,
    /// The alias set each result is written into (`-> (Tensor(a!) values, Tensor(b!) indices)`),
    /// `None` for fresh results.
    pub return_aliases: Vec<Option<String>>,
    /// Whether the op returns exactly one tensor (not a list).
    pub returns_one_tensor: bool,
}

impl OpSchema {
    /// The export target: `torch.ops.aten.add.Tensor`.
    pub fn target(&self) -> String {
        format!(
            "torch.ops.{}.{}.{}",
            self.namespace, self.name, self.overload
        )
    }

    pub fn arg(&self, name: &str) -> Option<&ArgSchema> {
        self.args.iter().find(|a| a.name == name)
    }

    /// Arguments the op writes in place.
    pub fn mutated_args(&self) -> impl Iterator<Item = &ArgSchema> {
        self.args.iter().filter(|a| a.mutated)
    }

    /// The result that holds the new value of mutated argument `arg`: the one in its alias set.
    pub fn result_of(&self, arg: &ArgSchema) -> Option<usize> {
        let set = arg.alias.as_ref()?;
        self.return_aliases
            .iter()
            .position(|r| r.as_ref() == Some(set))
    }

    /// The signature of the in-place variant torch pairs with this functional op (`silu` →
    /// `silu_(Tensor(a!) self) -> Tensor(a!)`): same overload and arguments, the first one written
    /// in place and returned. `None` for ops without one: those that already write, return
    /// several results or do not start with a tensor, and operators (`__and__` pairs with
    /// `__iand__`).
    pub fn in_place(&self) -> Option<OpSchema> {
        let first = self.args.first()?;
        let functional = self.mutated_args().next().is_none()
            && self.namespace == "aten"
            && self.returns_one_tensor
            && self.return_aliases == [None]
            && !self.name.ends_with('_')
            && !self.name.starts_with("__")
            && first.ty == BaseType::Tensor
            && first.list.is_none()
            && !first.optional;
        if !functional {
            return None;
        }
        let mut args = self.args.clone();
        args[0] = ArgSchema {
            name: "self".to_owned(),
            mutated: true,
            alias: Some("a".to_owned()),
            ..first.clone()
        };
        Some(OpSchema {
            namespace: self.namespace.clone(),
            name: format!("{}_", self.name),
            overload: self.overload.clone(),
            args,
            returns: 1,
            return_aliases: vec![Some("a".to_owned())],
            returns_one_tensor: true,
        })
    }

    /// Parses a signature; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<OpSchema, String> {
        let (head, returns) = text
            .rsplit_once("->")
            .ok_or_else(|| format!("`{text}` has no `->`"))?;
        let head = head.trim();
        let open = head
            .find('(')
            .ok_or_else(|| format!("`{text}` has no `(`"))?;
        let inner = head[open + 1..]
            .strip_suffix(')')
            .ok_or_else(|| format!("`{text}`: the arguments do not end with `)`"))?;
        let (namespace, qualified) = head[..open]
            .split_once("::")
            .unwrap_or(("aten", &head[..open]));
        let (name, overload) = qualified.split_once('.').unwrap_or((qualified, "default"));
        let mut args = Vec::new();
        let mut keyword_only = false;
        for part in split_top_level(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if part == "*" {
                keyword_only = true;
                continue;
            }
            args.push(parse_arg(part, keyword_only).map_err(|e| format!("`{text}`: {e}"))?);
        }
        let returns = returns.trim();
        let results: Vec<&str> = if returns == "()" {
            Vec::new()
        } else if let Some(tuple) = returns.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            split_top_level(tuple)
        } else {
            vec![returns]
        };
        let returns_one_tensor = matches!(results.as_slice(), [one] if one.trim().starts_with("Tensor") && !one.contains("[]"));
        let return_aliases = results.iter().map(|r| written_alias(r.trim())).collect();
        Ok(OpSchema {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            overload: overload.to_owned(),
            args,
            returns: results.len(),
            return_aliases,
            returns_one_tensor,
        })
    }
}

/// The alias set of a written annotation: `a` for `Tensor(a!)`.
fn written_alias(ty: &str) -> Option<String> {
    let annotation = ty.split_once('(')?.1.split_once(')')?.0;
    let set = annotation.strip_suffix('!')?;
    Some(set.trim().to_owned())
}

/// Splits on commas outside brackets and parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_arg(text: &str, keyword_only: bool) -> Result<ArgSchema, String> {
    let (decl, default) = match text.split_once('=') {
        Some((decl, default)) => (decl.trim(), Some(default.trim())),
        None => (text, None),
    };
    let (ty_text, name) = decl
        .rsplit_once(' ')
        .ok_or_else(|| format!("argument `{text}` has no name"))?;
    let mut rest = ty_text.trim();
    let base_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let base = &rest[..base_end];
    rest = &rest[base_end..];
    let mut mutated = false;
    let mut alias = None;
    if let Some(annotation) = rest.strip_prefix('(') {
        let close = annotation
            .find(')')
            .ok_or_else(|| format!("argument `{text}`: unclosed alias annotation"))?;
        let inner = &annotation[..close];
        mutated = inner.contains('!');
        let set = inner.split(['!', ' ']).next().unwrap_or_default();
        alias = (!set.is_empty()).then(|| set.to_owned());
        rest = &annotation[close + 1..];
    }
    let mut list = None;
    // `Tensor?[]`: a list of optional elements.
    let element_optional = rest.starts_with("?[");
    if element_optional {
        rest = &rest[1..];
    }
    if let Some(inner) = rest.strip_prefix('[') {
        let close = inner
            .find(']')
            .ok_or_else(|| format!("argument `{text}`: unclosed `[`"))?;
        let size = &inner[..close];
        list = Some(if size.is_empty() {
            None
        } else {
            Some(
                size.parse()
                    .map_err(|_| format!("argument `{text}`: bad list size"))?,
            )
        });
        rest = &inner[close + 1..];
    }
    let optional = rest == "?";
    if !(rest.is_empty() || optional) {
        return Err(format!("argument `{text}`: cannot read type `{ty_text}`"));
    }
    let ty = match base {
        "Tensor" => BaseType::Tensor,
        "int" | "SymInt" => BaseType::Int,
        "float" => BaseType::Float,
        "bool" => BaseType::Bool,
        "Scalar" => BaseType::Scalar,
        "str" => BaseType::Str,
        "ScalarType" => BaseType::ScalarType,
        "Layout" => BaseType::Layout,
        "Device" => BaseType::Device,
        "MemoryFormat" => BaseType::MemoryFormat,
        "Generator" => BaseType::Generator,
        _ => BaseType::Other,
    };
    let default = default
        .map(|d| parse_default(d, ty, list.is_some()))
        .transpose()
        .map_err(|e| format!("argument `{text}`: {e}"))?;
    Ok(ArgSchema {
        name: name.trim().to_owned(),
        ty,
        list,
        optional,
        mutated,
        alias,
        keyword_only,
        default,
    })
}

fn parse_default(text: &str, ty: BaseType, list: bool) -> Result<Argument, String> {
    let bad = || format!("cannot read default `{text}`");
    if text == "None" {
        return Ok(Argument::AsNone(serde_json::Value::Bool(true)));
    }
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let items: Vec<&str> = inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        return if ty == BaseType::Float {
            items
                .iter()
                .map(|i| i.parse().map(Float))
                .collect::<Result<_, _>>()
                .map(Argument::AsFloats)
                .map_err(|_| bad())
        } else {
            items
                .iter()
                .map(|i| i.parse())
                .collect::<Result<_, _>>()
                .map(Argument::AsInts)
                .map_err(|_| bad())
        };
    }
    match text {
        "True" => return Ok(Argument::AsBool(true)),
        "False" => return Ok(Argument::AsBool(false)),
        _ => {}
    }
    if let Some(s) = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .or_else(|| text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')))
    {
        return Ok(Argument::AsString(s.to_owned()));
    }
    match ty {
        BaseType::Int if list => text
            .parse()
            .map(|v: i64| Argument::AsInts(vec![v]))
            .map_err(|_| bad()),
        BaseType::Int => text.parse().map(Argument::AsInt).map_err(|_| bad()),
        BaseType::Float | BaseType::Scalar => {
            if let Ok(int) = text.parse::<i64>() {
                return Ok(if ty == BaseType::Float {
                    Argument::AsFloat(Float(int as f64))
                } else {
                    Argument::AsInt(int)
                });
            }
            let value = match text {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => text.parse().map_err(|_| bad())?,
            };
            Ok(Argument::AsFloat(Float(value)))
        }
        // Enum-valued defaults (`contiguous_format`, `long`, ...): kept as text.
        _ => Ok(Argument::AsString(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_types_and_defaults() {
        let s = OpSchema::parse(
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        )
        .unwrap();
        assert_eq!(s.target(), "torch.ops.aten.add_.Tensor");
        assert_eq!(s.args.len(), 3);
        assert!(s.args[0].mutated);
        assert!(!s.args[1].mutated);
        assert_eq!(s.result_of(&s.args[0]), Some(0));
        assert!(s.args[2].keyword_only);
        assert_eq!(s.args[2].default, Some(Argument::AsInt(1)));

        let s = OpSchema::parse(
            "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
        )
        .unwrap();
        assert_eq!(s.target(), "torch.ops.aten.conv2d.default");
        let stride = s.arg("stride").unwrap();
        assert_eq!(stride.list, Some(Some(2)));
        assert_eq!(stride.default, Some(Argument::AsInts(vec![1])));
        assert!(s.arg("bias").unwrap().optional);

        let s = OpSchema::parse(
            "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
        )
        .unwrap();
        assert_eq!(s.returns, 3);
        assert_eq!(s.arg("eps").unwrap().default, None);

        let s = OpSchema::parse("gelu(Tensor self, *, str approximate='none') -> Tensor").unwrap();
        assert_eq!(
            s.arg("approximate").unwrap().default,
            Some(Argument::AsString("none".into()))
        );
        let s = OpSchema::parse("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor").unwrap();
        assert_eq!(
            s.arg("keepdim").unwrap().default,
            Some(Argument::AsBool(false))
        );
        assert!(s.arg("dim").unwrap().optional);
        let s = OpSchema::parse("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor").unwrap();
        assert_eq!(
            s.arg("dropout_p").unwrap().default,
            Some(Argument::AsFloat(Float(0.0)))
        );
        let s = OpSchema::parse(
            "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
        )
        .unwrap();
        assert!(!s.args[0].mutated);

        // Several written arguments, each matched to its result by alias set.
        let s = OpSchema::parse(
            "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
        )
        .unwrap();
        assert_eq!(s.result_of(s.arg("max").unwrap()), Some(0));
        assert_eq!(s.result_of(s.arg("max_values").unwrap()), Some(1));
        assert_eq!(s.result_of(s.arg("self").unwrap()), None);
        // Written but not returned: the lowering reports the new value itself.
        let s = OpSchema::parse(
            "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        )
        .unwrap();
        let written: Vec<&str> = s.mutated_args().map(|a| a.name.as_str()).collect();
        assert_eq!(written, ["running_mean", "running_var"]);
        assert_eq!(s.result_of(s.arg("running_var").unwrap()), None);
    }

    #[test]
    fn in_place_variants_write_their_first_argument() {
        let clamp =
            OpSchema::parse("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")
                .unwrap()
                .in_place()
                .unwrap();
        assert_eq!(clamp.target(), "torch.ops.aten.clamp_.default");
        assert!(clamp.args[0].mutated);
        assert_eq!(clamp.result_of(&clamp.args[0]), Some(0));
        assert_eq!(
            clamp.arg("max").unwrap().default,
            Some(Argument::AsNone(true.into()))
        );
        let dropout = OpSchema::parse("dropout(Tensor input, float p, bool train) -> Tensor")
            .unwrap()
            .in_place()
            .unwrap();
        assert_eq!(dropout.args[0].name, "self");
        for none in [
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            "cat(Tensor[] tensors, int dim=0) -> Tensor",
            "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
            "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
            "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
        ] {
            assert_eq!(OpSchema::parse(none).unwrap().in_place(), None, "{none}");
        }
    }

    #[test]
    fn rejects_malformed_signatures() {
        assert!(OpSchema::parse("relu(Tensor self)").is_err());
        assert!(OpSchema::parse("relu(Tensor) -> Tensor").is_err());
        assert!(OpSchema::parse("f(int[x] a) -> Tensor").is_err());
    }
}
