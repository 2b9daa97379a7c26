//! Executables jaxlib loads: `Client.deserialize_executable` expects the form XLA's PJRT IFRT
//! client writes, a varint length, a `SerializedXlaExecutableMetadata` protobuf (openxla/xla
//! `xla/python/pjrt_ifrt/executable_metadata.proto`) describing the outputs and the parameters'
//! layouts, then the bytes `PJRT_Executable_Serialize` returned, unchanged. tpuc stores the
//! latter; this wraps them, from the entry's manifest.

use prost::Message;
use tpuc_cache::{Binding, Signature};

use crate::error::{DriverError, Result};

/// The metadata version and runtime name jaxlib 0.10 and 0.11 write and accept.
const IFRT_VERSION_NUMBER: i32 = 3;
const RUNTIME_NAME: &str = "pjrt_ifrt";
/// The layout type IFRT deserializes a parameter's layout as.
const PJRT_LAYOUT_TYPE: &str = "xla::ifrt::PjRtLayout";

#[derive(Clone, PartialEq, Message)]
struct SerializedXlaExecutableMetadata {
    #[prost(int32, tag = "1")]
    ifrt_version_number: i32,
    #[prost(string, tag = "2")]
    runtime_name: String,
    #[prost(message, repeated, tag = "5")]
    output_specs: Vec<OutputSpec>,
    #[prost(message, repeated, tag = "6")]
    parameter_specs: Vec<ParameterSpec>,
    #[prost(string, tag = "7")]
    computation_name: String,
    #[prost(message, optional, tag = "9")]
    executable_version: Option<SerializedXlaExecutableVersion>,
}

#[derive(Clone, PartialEq, Message)]
struct SerializedXlaExecutableVersion {}

#[derive(Clone, PartialEq, Message)]
struct OutputSpec {
    #[prost(message, optional, tag = "1")]
    shard_shape: Option<ShapeProto>,
    #[prost(message, optional, tag = "2")]
    dtype: Option<DTypeProto>,
    #[prost(string, tag = "4")]
    memory_kind: String,
    #[prost(message, optional, tag = "6")]
    shape: Option<ShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct ParameterSpec {
    #[prost(message, optional, tag = "1")]
    layout: Option<LayoutProto>,
}

/// `xla.ifrt.ShapeProto`
#[derive(Clone, PartialEq, Message)]
struct ShapeProto {
    #[prost(int64, repeated, tag = "1")]
    dims: Vec<i64>,
}

/// `xla.ifrt.DTypeProto`: `kind` numbers as XLA's `PrimitiveType`.
#[derive(Clone, PartialEq, Message)]
struct DTypeProto {
    #[prost(int32, tag = "1")]
    kind: i32,
}

/// `xla.ifrt.LayoutProto`: a serialized layout of a named type.
#[derive(Clone, PartialEq, Message)]
struct LayoutProto {
    #[prost(message, optional, tag = "1")]
    serialized: Option<SerializedLayout>,
}

#[derive(Clone, PartialEq, Message)]
struct SerializedLayout {
    #[prost(string, tag = "1")]
    type_name: String,
    #[prost(message, optional, tag = "2")]
    pjrt_layout: Option<PjRtLayoutProto>,
}

#[derive(Clone, PartialEq, Message)]
struct PjRtLayoutProto {
    #[prost(message, optional, tag = "1")]
    layout: Option<XlaLayoutProto>,
}

/// `xla.LayoutProto`: dense row-major, as XLA:CPU lays parameters out by default.
#[derive(Clone, PartialEq, Message)]
struct XlaLayoutProto {
    #[prost(int64, repeated, tag = "1")]
    minor_to_major: Vec<i64>,
    #[prost(int64, tag = "16")]
    tail_padding_alignment_in_elements: i64,
}

/// XLA's `PrimitiveType` number of a torch dtype name.
fn primitive_type(dtype: &str) -> Option<i32> {
    Some(match dtype {
        "bool" => 1,
        "int8" => 2,
        "int16" => 3,
        "int32" => 4,
        "int64" => 5,
        "uint8" => 6,
        "uint16" => 7,
        "uint32" => 8,
        "uint64" => 9,
        "float16" => 10,
        "float32" => 11,
        "float64" => 12,
        "complex64" => 15,
        "bfloat16" => 16,
        "complex128" => 18,
        _ => return None,
    })
}

fn kind_of(binding: &Binding) -> Result<DTypeProto> {
    let kind = primitive_type(&binding.dtype).ok_or_else(|| {
        DriverError::Unsupported(format!(
            "a {} value has no JAX dtype; this executable cannot be exported for JAX",
            binding.dtype
        ))
    })?;
    Ok(DTypeProto { kind })
}

/// The executable `payload` whose `main` has `signature` (an entry's manifest says it),
/// wrapped for jaxlib.
pub fn jax_envelope(signature: &Signature, payload: &[u8]) -> Result<Vec<u8>> {
    if signature.mesh.is_some() || signature.replicas.is_some() {
        return Err(DriverError::Unsupported(
            "the entry runs on several devices; exporting it for JAX describes one-device \
             executables only (export it --for pjrt and load it with the PJRT C API)"
                .to_owned(),
        ));
    }
    let output_specs = signature
        .results
        .iter()
        .map(|result| {
            let shape = ShapeProto {
                dims: result.shape.clone(),
            };
            Ok(OutputSpec {
                shard_shape: Some(shape.clone()),
                dtype: Some(kind_of(result)?),
                memory_kind: "device".to_owned(),
                shape: Some(shape),
            })
        })
        .collect::<Result<_>>()?;
    let parameter_specs = signature
        .arguments
        .iter()
        .map(|argument| {
            kind_of(argument)?;
            let rank = argument.shape.len() as i64;
            Ok(ParameterSpec {
                layout: Some(LayoutProto {
                    serialized: Some(SerializedLayout {
                        type_name: PJRT_LAYOUT_TYPE.to_owned(),
                        pjrt_layout: Some(PjRtLayoutProto {
                            layout: Some(XlaLayoutProto {
                                minor_to_major: (0..rank).rev().collect(),
                                tail_padding_alignment_in_elements: 1,
                            }),
                        }),
                    }),
                }),
            })
        })
        .collect::<Result<_>>()?;
    let metadata = SerializedXlaExecutableMetadata {
        ifrt_version_number: IFRT_VERSION_NUMBER,
        runtime_name: RUNTIME_NAME.to_owned(),
        output_specs,
        parameter_specs,
        computation_name: "main".to_owned(),
        executable_version: Some(SerializedXlaExecutableVersion {}),
    };
    let mut out = Vec::with_capacity(payload.len() + 256);
    metadata
        .encode_length_delimited(&mut out)
        .map_err(|e| DriverError::Unsupported(format!("cannot encode the JAX metadata: {e}")))?;
    out.extend_from_slice(payload);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(kind: &str, dtype: &str, shape: &[i64]) -> Binding {
        Binding {
            kind: kind.to_owned(),
            name: None,
            index: Some(0),
            dtype: dtype.to_owned(),
            shape: shape.to_vec(),
            sharding: None,
        }
    }

    /// What jaxlib 0.10.2 wrote for `jax.jit(lambda x, w: jnp.tanh(x @ w), keep_unused=True)` on
    /// f32[2,3] and f32[3,4] (metadata only, its computation name `jit_f` replaced by `main`).
    const JAXLIB_METADATA: &str = "7f08031209706a72745f696672742a180a040a0202041202080b2206\
        64657669636532040a02020432260a240a220a15786c613a3a696672743a3a506a52744c61796f757412090a\
        070a02010080010132260a240a220a15786c613a3a696672743a3a506a52744c61796f757412090a070a0201\
        008001013a046d61696e4a00";

    fn unhex(text: &str) -> Vec<u8> {
        let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits
            .chunks(2)
            .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap())
            .collect()
    }

    #[test]
    fn the_envelope_is_what_jaxlib_writes() {
        let signature = Signature {
            arguments: vec![
                binding("input", "float32", &[2, 3]),
                binding("input", "float32", &[3, 4]),
            ],
            results: vec![binding("output", "float32", &[2, 4])],
            mesh: None,
            replicas: None,
        };
        let payload = b"PJRT bytes";
        let envelope = jax_envelope(&signature, payload).unwrap();
        let mut expected = unhex(JAXLIB_METADATA);
        expected.extend_from_slice(payload);
        assert_eq!(envelope, expected);
    }

    #[test]
    fn dtypes_jax_lacks_are_refused() {
        let signature = Signature {
            arguments: vec![binding("input", "complex32", &[2])],
            results: Vec::new(),
            mesh: None,
            replicas: None,
        };
        let error = jax_envelope(&signature, b"").unwrap_err();
        assert!(error.to_string().contains("complex32"), "{error}");
    }
}
