//! JSON floats as torch writes them: numbers, or the strings `"Infinity"`, `"-Infinity"`, `"NaN"`
//! for non-finite values (`json.dumps(allow_nan=False)` after torch's own encoding).

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An `f64` that reads and writes non-finite values as torch's strings.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Float(pub f64);

impl From<Float> for f64 {
    fn from(value: Float) -> f64 {
        value.0
    }
}

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let value = self.0;
        if value.is_nan() {
            serializer.serialize_str("NaN")
        } else if value == f64::INFINITY {
            serializer.serialize_str("Infinity")
        } else if value == f64::NEG_INFINITY {
            serializer.serialize_str("-Infinity")
        } else {
            serializer.serialize_f64(value)
        }
    }
}

impl<'de> Deserialize<'de> for Float {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FloatVisitor;
        impl Visitor<'_> for FloatVisitor {
            type Value = Float;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a number or one of "Infinity", "-Infinity", "NaN""#)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Float, E> {
                Ok(Float(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Float, E> {
                Ok(Float(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Float, E> {
                Ok(Float(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Float, E> {
                match v {
                    "Infinity" | "inf" => Ok(Float(f64::INFINITY)),
                    "-Infinity" | "-inf" => Ok(Float(f64::NEG_INFINITY)),
                    "NaN" | "nan" => Ok(Float(f64::NAN)),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
        }
        deserializer.deserialize_any(FloatVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::Float;

    #[test]
    fn reads_numbers_and_non_finite_strings() {
        let values: Vec<Float> =
            serde_json::from_str(r#"[1.5, -2, "Infinity", "-Infinity", "NaN"]"#).unwrap();
        assert_eq!(values[0].0, 1.5);
        assert_eq!(values[1].0, -2.0);
        assert_eq!(values[2].0, f64::INFINITY);
        assert_eq!(values[3].0, f64::NEG_INFINITY);
        assert!(values[4].0.is_nan());
        assert_eq!(
            serde_json::to_string(&values).unwrap(),
            r#"[1.5,-2.0,"Infinity","-Infinity","NaN"]"#
        );
        assert!(serde_json::from_str::<Float>(r#""infinite""#).is_err());
    }
}
