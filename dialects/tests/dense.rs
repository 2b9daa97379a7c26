//! Dense constant encoding: known IEEE and OCP FP8 bit patterns, canonical splats, validation.

use tpuc_ir::*;

fn bits(element: ElementType, value: f64) -> u64 {
    let data = DenseElements::splat_f64(element, value);
    data.bytes()
        .iter()
        .rev()
        .fold(0, |acc, &byte| (acc << 8) | u64::from(byte))
}

#[test]
fn floats_round_to_nearest_even_in_every_format() {
    use ElementType::*;
    let cases: &[(ElementType, f64, u64)] = &[
        (F32, 0.1, 0x3DCC_CCCD),
        (F64, -2.0, 0xC000_0000_0000_0000),
        (BF16, 0.1, 0x3DCD),
        (BF16, 1.0 / 3.0, 0x3EAB),
        (BF16, f64::NEG_INFINITY, 0xFF80),
        (F16, 0.1, 0x2E66),
        (F16, 1.0 / 3.0, 0x3555),
        (F16, 65504.0, 0x7BFF),
        (F16, 65520.0, 0x7C00),
        (F16, 6.0e-8, 0x0001),
        (F16, -0.0, 0x8000),
        (F8E4M3FN, 0.1, 0x1D),
        (F8E4M3FN, 448.0, 0x7E),
        (F8E4M3FN, -448.0, 0xFE),
        (F8E4M3FN, 1.0e6, 0x7F),
        (F8E4M3FN, f64::NAN, 0x7F),
        (F8E5M2, 0.1, 0x2E),
        (F8E5M2, f64::INFINITY, 0x7C),
        (F8E5M2, 57344.0, 0x7B),
        (F8E4M3FNUZ, 1.0, 0x40),
        (F8E4M3FNUZ, -0.0, 0x00),
        (F8E4M3FNUZ, f64::NAN, 0x80),
        (F8E5M2FNUZ, 1.0, 0x40),
        (F8E4M3B11FNUZ, 1.0, 0x58),
        (I1, 3.0, 1),
        (I8, -1.0, 0xFF),
        (UI16, 65535.0, 0xFFFF),
    ];
    let mut failures = Vec::new();
    for &(element, value, expected) in cases {
        let got = bits(element, value);
        if got != expected {
            failures.push(format!(
                "{element}({value}) = {got:#x}, expected {expected:#x}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn decoding_returns_the_value_or_the_raw_bits_of_specials() {
    let ty = TensorType::of(&[3], ElementType::BF16);
    let data = DenseElements::from_f64s(&ty, &[1.5, f64::INFINITY, -0.25]).unwrap();
    let values: Vec<ElementValue> = (0..3).map(|i| data.value(ty.element, i)).collect();
    assert_eq!(
        values,
        [
            ElementValue::Float(FloatBits {
                bits: 0x3FC0,
                value: Some(1.5)
            }),
            ElementValue::Float(FloatBits {
                bits: 0x7F80,
                value: None
            }),
            ElementValue::Float(FloatBits {
                bits: 0xBE80,
                value: Some(-0.25)
            }),
        ]
    );
    let ints = TensorType::of(&[2], ElementType::I4);
    let data = DenseElements::from_i64s(&ints, &[-3, 7]).unwrap();
    assert_eq!(data.value(ElementType::I4, 0), ElementValue::Signed(-3));
    assert_eq!(data.bytes(), [0x0D, 0x07]);
}

#[test]
fn equal_elements_become_a_splat() {
    let ty = TensorType::of(&[2, 2], ElementType::I32);
    let data = DenseElements::from_i64s(&ty, &[7, 7, 7, 7]).unwrap();
    assert!(data.is_splat());
    assert_eq!(data, DenseElements::splat_i64(ElementType::I32, 7));
    assert!(data.fits(&ty));
    assert!(
        !DenseElements::from_i64s(&ty, &[7, 7, 7, 8])
            .unwrap()
            .is_splat()
    );
}

#[test]
fn malformed_data_is_rejected() {
    let ty = TensorType::of(&[3], ElementType::F32);
    let error = DenseElements::from_bytes(&ty, vec![0; 8]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid constant: 8 bytes do not hold 3 elements of f32 (4 bytes each)"
    );
    let dynamic = TensorType::new(vec![Dim::Dynamic], ElementType::F32);
    assert!(DenseElements::from_bytes(&dynamic, vec![0; 4]).is_err());
    let bools = TensorType::of(&[2], ElementType::I1);
    assert!(DenseElements::from_bytes(&bools, vec![1, 2]).is_err());
}
