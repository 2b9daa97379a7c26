//! Tensor-subclass weights: torchao's quantized tensors, which `torch.export.save` stores as a
//! `torch.save` archive nested in the weight's record. The nested pickle is read by
//! [`crate::pickle`] (nothing runs) and must have the one shape torch gives a wrapper subclass:
//! `_rebuild_from_type_v2(_rebuild_wrapper_subclass, Class, (Class, dtype, sizes, ...), state)`,
//! where `Class` is a layout tpuc knows and the tensors of `state` (`qdata`, `scale`, ...) are
//! plain tensors stored in the nested archive. Each inner tensor becomes a weight of its own,
//! named `<fqn>.<attribute>`, that the graph reaches through `export.access_subclass_inner_tensor`.

use std::rc::Rc;

use crate::DType;
use crate::pickle::Object;

/// torchao's tensor subclasses that tpuc reads: their inner tensors are plain tensors, and the
/// graph spells out what is computed from them.
pub const KNOWN_SUBCLASSES: [&str; 3] = ["Int8Tensor", "IntxUnpackedToInt8Tensor", "Float8Tensor"];

/// A weight stored as a tensor subclass.
#[derive(Clone, Debug)]
pub struct Subclass {
    pub(crate) fqn: String,
    pub(crate) placeholder: Option<String>,
    pub(crate) class: String,
    pub(crate) dtype: DType,
    pub(crate) sizes: Vec<usize>,
    pub(crate) inner: Vec<(String, String)>,
    pub(crate) target_dtype: Option<DType>,
}

impl Subclass {
    /// The state-dict name, e.g. `fc1.weight`.
    pub fn fqn(&self) -> &str {
        &self.fqn
    }

    /// The graph input that receives it (`p_fc1_weight`), if the signature names one.
    pub fn placeholder(&self) -> Option<&str> {
        self.placeholder.as_deref()
    }

    /// The class, e.g. `torchao.quantization.Int8Tensor`.
    pub fn class(&self) -> &str {
        &self.class
    }

    /// The element type the subclass presents (the float type of the weight it replaces).
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The sizes the subclass presents.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The name of the weight holding inner tensor `attribute` (`qdata`, `scale`, ...).
    pub fn inner(&self, attribute: &str) -> Option<&str> {
        self.inner
            .iter()
            .find(|(a, _)| a == attribute)
            .map(|(_, fqn)| fqn.as_str())
    }

    /// The type the quantized values are of when it is narrower than their storage: torchao's
    /// `target_dtype` (`int4` for int4 weights held in int8 `qdata`).
    pub fn target_dtype(&self) -> Option<DType> {
        self.target_dtype
    }

    /// The inner tensors' attributes, in the order the pickle lists them.
    pub fn attributes(&self) -> impl Iterator<Item = &str> {
        self.inner.iter().map(|(a, _)| a.as_str())
    }
}

/// An inner tensor as the pickle describes it.
#[derive(Debug)]
pub(crate) struct InnerTensor {
    pub attribute: String,
    /// The storage's key: the nested record `data/<key>`.
    pub key: String,
    pub dtype: DType,
    pub sizes: Vec<usize>,
    pub strides: Vec<usize>,
    pub storage_offset: usize,
}

/// What a subclass pickle describes: the class, the type it presents, its inner tensors.
#[derive(Debug)]
pub(crate) struct Layout {
    pub class: String,
    pub dtype: DType,
    pub sizes: Vec<usize>,
    pub inner: Vec<InnerTensor>,
    pub target_dtype: Option<DType>,
}

type Found<T> = Result<T, String>;

fn call_of(object: &Object, module: &str, name: &str) -> Option<Vec<Rc<Object>>> {
    match object {
        Object::Call { callable, args } if callable.is_global(module, name) => args.items(),
        _ => None,
    }
}

fn dtype_of(object: &Object) -> Option<DType> {
    match object {
        Object::Global { module, name } if module == "torch" => {
            DType::ALL.into_iter().find(|d| d.torch_name() == name)
        }
        _ => None,
    }
}

/// The element type of a typed storage class (`torch.FloatStorage` → float32).
fn storage_dtype(name: &str) -> Option<DType> {
    Some(match name.strip_suffix("Storage")? {
        "Float" => DType::F32,
        "Double" => DType::F64,
        "Half" => DType::F16,
        "BFloat16" => DType::BF16,
        "Char" => DType::I8,
        "Byte" => DType::U8,
        "Short" => DType::I16,
        "Int" => DType::I32,
        "Long" => DType::I64,
        "Bool" => DType::Bool,
        "ComplexFloat" => DType::C64,
        "ComplexDouble" => DType::C128,
        _ => return None,
    })
}

fn count(object: &Object, what: &str) -> Found<usize> {
    object
        .as_int()
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| format!("its {what} is not a non-negative integer"))
}

fn counts(object: &Object, what: &str) -> Found<Vec<usize>> {
    let items = object
        .items()
        .ok_or_else(|| format!("its {what} is not a tuple"))?;
    items.iter().map(|item| count(item, what)).collect()
}

/// A plain tensor: `_rebuild_tensor_v2(storage, offset, sizes, strides, ...)` over a typed
/// storage, or `_rebuild_tensor_v3(..., dtype)` over an untyped one.
fn tensor(attribute: &str, object: &Object) -> Found<Option<InnerTensor>> {
    let (args, explicit) = if let Some(args) = call_of(object, "torch._utils", "_rebuild_tensor_v2")
    {
        (args, None)
    } else if let Some(args) = call_of(object, "torch._utils", "_rebuild_tensor_v3") {
        let dtype = args.get(6).and_then(|d| dtype_of(d));
        (
            args,
            Some(dtype.ok_or("`_rebuild_tensor_v3` names no known dtype")?),
        )
    } else {
        return Ok(None);
    };
    let [storage, offset, sizes, strides, ..] = &args[..] else {
        return Err(format!(
            "`{attribute}` is rebuilt from {} arguments",
            args.len()
        ));
    };
    let Object::Persistent(id) = &**storage else {
        return Err(format!("`{attribute}` names no stored storage"));
    };
    let id = id.items().unwrap_or_default();
    let [tag, class, key, ..] = &id[..] else {
        return Err(format!(
            "`{attribute}`'s storage id is not a storage record"
        ));
    };
    let (Some("storage"), Some(key)) = (tag.as_str(), key.as_str()) else {
        return Err(format!(
            "`{attribute}`'s storage id is not a storage record"
        ));
    };
    let dtype = match (&**class, explicit) {
        (Object::Global { module, name }, None) if module == "torch" => storage_dtype(name),
        (Object::Global { .. }, Some(dtype))
            if class.is_global("torch.storage", "UntypedStorage") =>
        {
            Some(dtype)
        }
        _ => None,
    };
    let dtype =
        dtype.ok_or_else(|| format!("`{attribute}`'s storage has no element type tpuc reads"))?;
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "`{attribute}`'s storage key `{key}` is not a record name"
        ));
    }
    Ok(Some(InnerTensor {
        attribute: attribute.to_owned(),
        key: key.to_owned(),
        dtype,
        sizes: counts(sizes, "sizes")?,
        strides: counts(strides, "strides")?,
        storage_offset: count(offset, "storage offset")?,
    }))
}

/// Reads the layout of a subclass pickle, refusing any other shape.
pub(crate) fn layout(pickle: &Object) -> Found<Layout> {
    let not_subclass = || "it is not a tensor subclass torch.save wrote".to_owned();
    let args =
        call_of(pickle, "torch._tensor", "_rebuild_from_type_v2").ok_or_else(not_subclass)?;
    let [rebuild, class, wrapper, state] = &args[..] else {
        return Err(not_subclass());
    };
    if !rebuild.is_global("torch._utils", "_rebuild_wrapper_subclass") {
        return Err(not_subclass());
    }
    let Object::Global { module, name } = &**class else {
        return Err(not_subclass());
    };
    if !module.starts_with("torchao") || !KNOWN_SUBCLASSES.contains(&name.as_str()) {
        return Err(format!(
            "its class `{module}.{name}` is not a layout tpuc reads (it reads torchao's {})",
            KNOWN_SUBCLASSES.join(", ")
        ));
    }
    let wrapper = wrapper.items().ok_or_else(not_subclass)?;
    let [_, dtype, sizes, ..] = &wrapper[..] else {
        return Err(not_subclass());
    };
    let dtype = dtype_of(dtype).ok_or("its dtype is not one tpuc knows")?;
    let sizes = counts(sizes, "sizes")?;
    let state = state.entries().ok_or("its state is not a dict")?;
    let mut inner = Vec::new();
    let mut target_dtype = None;
    for (key, value) in &state {
        let Some(attribute) = key.as_str() else {
            return Err("its state has a key that is not a name".into());
        };
        if attribute == "target_dtype" {
            target_dtype = dtype_of(value);
        }
        if call_of(value, "torch._tensor", "_rebuild_from_type_v2").is_some() {
            return Err(format!("`{attribute}` is itself a tensor subclass"));
        }
        inner.extend(tensor(attribute, value)?);
    }
    if inner.is_empty() {
        return Err("it holds no tensors".into());
    }
    Ok(Layout {
        class: format!("{module}.{name}"),
        dtype,
        sizes,
        inner,
        target_dtype,
    })
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    fn global(module: &str, name: &str) -> Rc<Object> {
        Rc::new(Object::Global {
            module: module.into(),
            name: name.into(),
        })
    }

    fn call(callable: Rc<Object>, args: Vec<Rc<Object>>) -> Rc<Object> {
        Rc::new(Object::Call {
            callable,
            args: Rc::new(Object::Tuple(args)),
        })
    }

    fn ints(values: &[i64]) -> Rc<Object> {
        Rc::new(Object::Tuple(
            values.iter().map(|&v| Rc::new(Object::Int(v))).collect(),
        ))
    }

    fn text(s: &str) -> Rc<Object> {
        Rc::new(Object::Str(s.into()))
    }

    /// `_rebuild_tensor_v2` of a typed storage record `key`.
    fn tensor(storage: &str, key: &str, sizes: &[i64], strides: &[i64]) -> Rc<Object> {
        let id = Rc::new(Object::Tuple(vec![
            text("storage"),
            global("torch", storage),
            text(key),
            text("cpu"),
            Rc::new(Object::Int(0)),
        ]));
        call(
            global("torch._utils", "_rebuild_tensor_v2"),
            vec![
                Rc::new(Object::Persistent(id)),
                Rc::new(Object::Int(0)),
                ints(sizes),
                ints(strides),
                Rc::new(Object::Bool(false)),
            ],
        )
    }

    fn subclass(module: &str, class: &str, state: Vec<(&str, Rc<Object>)>) -> Rc<Object> {
        let class = global(module, class);
        let wrapper = Rc::new(Object::Tuple(vec![
            class.clone(),
            global("torch", "float32"),
            ints(&[4, 8]),
            ints(&[8, 1]),
        ]));
        let state = state.into_iter().map(|(k, v)| (text(k), v)).collect();
        call(
            global("torch._tensor", "_rebuild_from_type_v2"),
            vec![
                global("torch._utils", "_rebuild_wrapper_subclass"),
                class,
                wrapper,
                Rc::new(Object::Dict(RefCell::new(state))),
            ],
        )
    }

    #[test]
    fn a_known_layout_lists_its_tensors() {
        let pickle = subclass(
            "torchao.quantization",
            "Int8Tensor",
            vec![
                ("qdata", tensor("CharStorage", "0", &[4, 8], &[8, 1])),
                ("scale", tensor("FloatStorage", "1", &[4, 1], &[1, 1])),
                ("act_quant_scale", Rc::new(Object::None)),
                ("block_size", ints(&[1, 8])),
            ],
        );
        let layout = layout(&pickle).unwrap();
        assert_eq!(layout.class, "torchao.quantization.Int8Tensor");
        assert_eq!(
            (layout.dtype, layout.sizes.as_slice()),
            (DType::F32, &[4, 8][..])
        );
        let inner: Vec<_> = layout
            .inner
            .iter()
            .map(|t| {
                (
                    t.attribute.as_str(),
                    t.key.as_str(),
                    t.dtype,
                    t.sizes.clone(),
                )
            })
            .collect();
        assert_eq!(
            inner,
            [
                ("qdata", "0", DType::I8, vec![4, 8]),
                ("scale", "1", DType::F32, vec![4, 1])
            ]
        );
    }

    #[test]
    fn other_shapes_are_refused_with_the_reason() {
        let qdata = || tensor("CharStorage", "0", &[4, 8], &[8, 1]);
        let cases = [
            (
                subclass(
                    "torch.distributed.tensor",
                    "DTensor",
                    vec![("_local_tensor", qdata())],
                ),
                "not a layout tpuc reads",
            ),
            (
                subclass(
                    "torchao.quantization",
                    "Int4Tensor",
                    vec![("qdata", qdata())],
                ),
                "not a layout tpuc reads",
            ),
            (
                subclass(
                    "torchao.quantization",
                    "Int8Tensor",
                    vec![(
                        "qdata",
                        subclass("torchao.quantization", "Int8Tensor", vec![]),
                    )],
                ),
                "itself a tensor subclass",
            ),
            (
                subclass(
                    "torchao.quantization",
                    "Int8Tensor",
                    vec![("block_size", ints(&[1]))],
                ),
                "holds no tensors",
            ),
            (
                subclass(
                    "torchao.quantization",
                    "Int8Tensor",
                    vec![("qdata", tensor("CharStorage", "../x", &[4], &[1]))],
                ),
                "not a record name",
            ),
            (
                tensor("CharStorage", "0", &[4], &[1]),
                "not a tensor subclass",
            ),
        ];
        for (pickle, reason) in cases {
            let error = layout(&pickle).unwrap_err();
            assert!(error.contains(reason), "{error}");
        }
    }
}
