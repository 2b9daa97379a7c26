//! Conversions between the 16-bit float formats and f32.

/// Widens an IEEE half-precision value; exact.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits >> 15) << 31;
    let exponent = u32::from((bits >> 10) & 0x1f);
    let mantissa = u32::from(bits & 0x3ff);
    let magnitude = match (exponent, mantissa) {
        (0, 0) => 0,
        // Subnormal: mantissa · 2^-24, exactly representable in f32.
        (0, m) => (m as f32 * f32::from_bits(0x3380_0000)).to_bits(),
        (0x1f, m) => 0x7f80_0000 | (m << 13),
        (e, m) => ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// Widens a bfloat16 value (its 16 bits); exact.
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// Rounds to the nearest bfloat16, ties to even; NaNs stay (quiet) NaNs.
pub fn f32_to_bf16(value: f32) -> u16 {
    let bits = value.to_bits();
    if value.is_nan() {
        return ((bits >> 16) as u16) | 0x0040;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_values() {
        let cases: [(u16, f32); 8] = [
            (0x3c00, 1.0),
            (0xc000, -2.0),
            (0x3555, 0.333_251_95),
            (0x7bff, 65504.0),
            (0x0001, 5.960_464_5e-8),
            (0x8000, -0.0),
            (0x7c00, f32::INFINITY),
            (0x0400, 6.103_515_6e-5),
        ];
        for (bits, value) in cases {
            assert_eq!(f16_to_f32(bits).to_bits(), value.to_bits(), "{bits:#06x}");
        }
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
        assert_eq!(f32_to_bf16(1.0 + 1.0 / 256.0), 0x3f80);
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to even.
        assert_eq!(f32_to_bf16(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8001)), 0x3f81);
        assert_eq!(f32_to_bf16(f32::MAX), 0x7f80); // overflows to infinity
        assert_eq!(f32_to_bf16(-0.0), 0x8000);
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
        assert!(bf16_to_f32(f32_to_bf16(f32::from_bits(0x7f80_0001))).is_nan());
        for bits in [0x3f80u16, 0xc049, 0x0001, 0x7f7f, 0xff80] {
            assert_eq!(f32_to_bf16(bf16_to_f32(bits)), bits);
        }
    }
}
