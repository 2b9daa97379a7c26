//! Files written by numpy (`tests/data/generate.py`, and the model fixtures of `testdata/`):
//! every dtype, both byte orders, Fortran order, format versions 1 to 3.

use std::path::{Path, PathBuf};

use tpuc_npy::{Array, Dtype};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The values `generate.py`'s `base` gives element `n` of an array of `dtype`, as f64
/// (complex: real, imaginary).
fn base(dtype: Dtype, n: usize) -> Vec<f64> {
    let n = n as f64;
    match dtype {
        Dtype::Bool => vec![f64::from(n % 3.0 == 0.0)],
        Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => vec![(n * 37.0) % 200.0 - 100.0],
        Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => vec![(n * 37.0) % 250.0],
        Dtype::F16 | Dtype::F32 | Dtype::F64 => vec![n * 0.75 - 2.5],
        Dtype::C64 | Dtype::C128 => vec![n * 0.5 - 1.0, 2.0 - n * 0.25],
    }
}

fn expected(dtype: Dtype, count: usize) -> Vec<f64> {
    (0..count).flat_map(|n| base(dtype, n)).collect()
}

const CODES: [(&str, Dtype); 14] = [
    ("b1", Dtype::Bool),
    ("i1", Dtype::I8),
    ("i2", Dtype::I16),
    ("i4", Dtype::I32),
    ("i8", Dtype::I64),
    ("u1", Dtype::U8),
    ("u2", Dtype::U16),
    ("u4", Dtype::U32),
    ("u8", Dtype::U64),
    ("f2", Dtype::F16),
    ("f4", Dtype::F32),
    ("f8", Dtype::F64),
    ("c8", Dtype::C64),
    ("c16", Dtype::C128),
];

#[test]
fn every_little_endian_dtype_reads_and_writes_back_byte_identical() {
    for (code, dtype) in CODES {
        let path = data(&format!("le_{code}.npy"));
        let array = Array::read(&path).unwrap();
        assert_eq!(array.dtype(), dtype, "{code}");
        assert_eq!(array.shape(), [2, 3], "{code}");
        assert_eq!(array.to_f64(), expected(dtype, 6), "{code}");
        let original = std::fs::read(&path).unwrap();
        assert_eq!(array.to_npy_bytes(), original, "{code}: numpy.save bytes");
    }
}

#[test]
fn big_endian_files_are_swapped() {
    for (code, dtype) in CODES
        .into_iter()
        .filter(|(code, _)| ["i2", "u4", "f4", "f8", "c8", "c16"].contains(code))
    {
        let big = Array::read(data(&format!("be_{code}.npy"))).unwrap();
        let little = Array::read(data(&format!("le_{code}.npy"))).unwrap();
        assert_eq!(big.dtype(), dtype);
        assert_eq!(big, little, "{code}");
    }
}

#[test]
fn fortran_order_is_transposed_to_c_order() {
    let array = Array::read(data("fortran_f4.npy")).unwrap();
    assert_eq!(array.shape(), [2, 3, 4]);
    assert_eq!(array.to_f64(), expected(Dtype::F32, 24));
    let array = Array::read(data("fortran_be_i8.npy")).unwrap();
    assert_eq!(array.shape(), [3, 2]);
    assert_eq!(array.to_f64(), expected(Dtype::I64, 6));
}

#[test]
fn format_versions_scalars_and_empty_arrays() {
    let v1 = Array::read(data("le_f4.npy")).unwrap();
    assert_eq!(Array::read(data("v2_f4.npy")).unwrap(), v1);
    assert_eq!(Array::read(data("v3_f4.npy")).unwrap(), v1);

    let scalar = Array::read(data("scalar_f8.npy")).unwrap();
    assert_eq!(scalar.shape(), [] as [usize; 0]);
    assert_eq!(scalar.to_f64(), [-2.5]);
    let empty = Array::read(data("empty_i4.npy")).unwrap();
    assert_eq!((empty.shape(), empty.len()), ([0, 3].as_slice(), 0));
    let vector = Array::read(data("vector_u1.npy")).unwrap();
    assert_eq!(vector.to_f64(), expected(Dtype::U8, 5));
    for name in ["scalar_f8.npy", "empty_i4.npy", "vector_u1.npy"] {
        let array = Array::read(data(name)).unwrap();
        assert_eq!(
            array.to_npy_bytes(),
            std::fs::read(data(name)).unwrap(),
            "{name}"
        );
    }
}

/// The model fixtures: float32, float16 (`llama_f16`), int64, int32 (`buckets`) and bool arrays
/// written by `testdata/generate.py` (bfloat16 tensors are stored as float32).
#[test]
fn model_fixtures_read_with_the_manifest_shapes() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/models");
    let mut count = 0;
    for entry in std::fs::read_dir(&models).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "npy") {
            let array = Array::read(&path).unwrap();
            assert!(
                matches!(
                    array.dtype(),
                    Dtype::F32 | Dtype::F16 | Dtype::I64 | Dtype::I32 | Dtype::Bool
                ),
                "{path:?}"
            );
            assert_eq!(
                array.to_npy_bytes(),
                std::fs::read(&path).unwrap(),
                "{path:?}"
            );
            count += 1;
        }
    }
    assert!(count > 0, "no .npy fixtures in {models:?}");
}

#[test]
fn bad_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(data("le_f4.npy")).unwrap();
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("short.npy", good[..good.len() - 1].to_vec(), "needs 24"),
        (
            "long.npy",
            [good.as_slice(), &[0]].concat(),
            "is 25 bytes long",
        ),
        ("text.npy", b"hello".to_vec(), "not a .npy file"),
        (
            "bool.npy",
            {
                let mut b = std::fs::read(data("le_b1.npy")).unwrap();
                *b.last_mut().unwrap() = 7;
                b
            },
            "other than 0 or 1",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let error = Array::read(&path).unwrap_err().to_string();
        assert!(error.contains(name) && error.contains(expected), "{error}");
    }
    // A header promising more elements than memory holds, over 8 bytes of data.
    let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }";
    let mut huge = b"\x93NUMPY\x01\x00".to_vec();
    huge.extend_from_slice(&(header.len() as u16).to_le_bytes());
    huge.extend_from_slice(header.as_bytes());
    huge.extend_from_slice(&[0; 8]);
    let error = Array::from_npy_bytes(&huge).unwrap_err().to_string();
    assert!(error.contains("more elements than memory"), "{error}");

    let error = Array::read(dir.path().join("absent.npy")).unwrap_err();
    assert!(error.to_string().contains("absent.npy"));
}

#[test]
fn bfloat16_goes_through_float32() {
    let bits: Vec<u8> = [0x3f80u16, 0xc049, 0x0001, 0xff80]
        .iter()
        .flat_map(|b| b.to_le_bytes())
        .collect();
    let wide = Array::from_bf16(vec![4], &bits).unwrap();
    assert_eq!(wide.dtype(), Dtype::F32);
    assert_eq!(wide.to_f64()[..2], [1.0, -3.140625]);
    assert_eq!(wide.to_bf16().unwrap(), bits);
    assert!(Array::read(data("le_f8.npy")).unwrap().to_bf16().is_err());
}
