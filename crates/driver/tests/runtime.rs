//! The execution plumbing on the real XLA:CPU plugin, with a module built by hand: borrowed and
//! strided arguments, bf16 through `.npy` float32, several results.

use std::borrow::Cow;

use tpuc_driver::{HostTensor, Runtime};
use tpuc_ir::{ElementType, FunctionBuilder, Module, TensorType, Visibility};
use tpuc_pt2::DType;

fn le<T: Copy, const N: usize>(values: &[T], to_bytes: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| to_bytes(v)).collect()
}

/// main(w: bf16[2,3], x: f32[3], n: i64[2]) -> (f32[2,3] = f32(w) * x, bf16[2,3] = w + w, i64[2] = n * n)
fn module() -> Module {
    let mut f = FunctionBuilder::new("main", Visibility::Public);
    let w = f.arg(TensorType::of(&[2, 3], ElementType::BF16));
    let x = f.arg(TensorType::of(&[3], ElementType::F32));
    let n = f.arg(TensorType::of(&[2], ElementType::I64));
    let wide = f.convert(w, ElementType::F32).unwrap();
    let xb = f.broadcast_in_dim(x, &[1], [2, 3]).unwrap();
    let scaled = f.multiply(wide, xb).unwrap();
    let doubled = f.add(w, w).unwrap();
    let squared = f.multiply(n, n).unwrap();
    f.ret(&[scaled, doubled, squared]).unwrap();
    let mut module = Module::new();
    module.add_function(f.finish().unwrap()).unwrap();
    module
}

#[test]
fn hand_built_module_runs_with_borrowed_arguments() {
    tpuc_expect::skip_without!(CpuPlugin);
    let runtime = Runtime::cpu(None).unwrap();
    let executable = runtime.compile_module(&module()).unwrap();

    // bf16 patterns of 1, -2, 0.5, 3, 0.25, -1 as they would lie in a mapped archive.
    let w_bits = le(
        &[0x3f80u16, 0xc000, 0x3f00, 0x4040, 0x3e80, 0xbf80],
        u16::to_le_bytes,
    );
    let x = le(&[2.0f32, -1.0, 4.0], f32::to_le_bytes);
    let n = le(&[3i64, -3_000_000_000], i64::to_le_bytes);
    let arguments = [
        HostTensor {
            dtype: DType::BF16,
            shape: vec![2, 3],
            bytes: Cow::Borrowed(&w_bits),
        },
        HostTensor {
            dtype: DType::F32,
            shape: vec![3],
            bytes: Cow::Borrowed(&x),
        },
        HostTensor {
            dtype: DType::I64,
            shape: vec![2],
            bytes: Cow::Borrowed(&n),
        },
    ];
    let results = executable.execute(&arguments).unwrap();
    assert_eq!(results.len(), 3);

    let scaled = results[0].to_npy().unwrap();
    assert_eq!(scaled.shape(), [2, 3]);
    assert_eq!(scaled.to_f64(), [2.0, 2.0, 2.0, 6.0, -0.25, -4.0]);

    assert_eq!(results[1].dtype, DType::BF16);
    let doubled = results[1].to_npy().unwrap();
    assert_eq!(
        doubled.dtype(),
        tpuc_npy::Dtype::F32,
        "bf16 is written as float32"
    );
    assert_eq!(doubled.to_f64(), [2.0, -4.0, 1.0, 6.0, 0.5, -2.0]);

    assert_eq!(results[2].dtype, DType::I64);
    assert_eq!(results[2].to_npy().unwrap().to_f64(), [9.0, 9e18]);
}

#[test]
fn wrong_arguments_and_bad_text_are_errors() {
    tpuc_expect::skip_without!(CpuPlugin);
    let runtime = Runtime::cpu(None).unwrap();
    let executable = runtime.compile_module(&module()).unwrap();
    let short = HostTensor {
        dtype: DType::F32,
        shape: vec![3],
        bytes: Cow::Owned(vec![0; 4]),
    };
    let error = executable.execute(&[short]).unwrap_err().to_string();
    assert!(error.contains("must be 12 bytes"), "{error}");

    let error = runtime
        .compile("func.func @main( {")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("compiling the module on XLA:CPU failed"),
        "{error}"
    );
}
