//! Shape specialisations: values for a model's symbolic dimensions.

use std::collections::BTreeMap;
use std::fmt;

/// Sizes for some symbols of a model (`s0 = 8`); symbols not listed keep the exported example's
/// value, so the empty shape is the exported example itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape(pub BTreeMap<String, u64>);

impl Shape {
    pub fn is_example(&self) -> bool {
        self.0.is_empty()
    }

    /// `(symbol, size)` pairs as `tpuc compile --dim SYMBOL=N` takes them.
    pub fn dims(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(symbol, &size)| (symbol.as_str(), size))
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_example() {
            return f.write_str("example");
        }
        let dims: Vec<String> = self.dims().map(|(s, n)| format!("{s}={n}")).collect();
        f.write_str(&dims.join(","))
    }
}

/// The sizes of `pow2:LO..HI`: LO, 2·LO, 4·LO, ... up to HI (`pow2:128..2048` is 128, 256,
/// 512, 1024, 2048).
pub fn pow2_sizes(spec: &str) -> Result<Vec<u64>, String> {
    let range = spec.strip_prefix("pow2:").ok_or_else(|| {
        format!("`{spec}`: buckets are written pow2:LO..HI (LO, 2·LO, 4·LO, ... up to HI)")
    })?;
    let (low, high) = range
        .split_once("..")
        .ok_or_else(|| format!("`{range}`: expected LO..HI such as 128..2048"))?;
    let size = |text: &str| match text.trim().parse::<u64>() {
        Ok(size) if size > 0 => Ok(size),
        _ => Err(format!("`{text}` is not a positive size")),
    };
    let (low, high) = (size(low)?, size(high)?);
    if low > high {
        return Err(format!("`{range}`: {low} is larger than {high}"));
    }
    Ok(
        std::iter::successors(Some(low), |&size| size.checked_mul(2))
            .take_while(|&size| size <= high)
            .collect(),
    )
}

/// Every combination of the listed sizes: the cartesian product over symbols in name order,
/// each symbol's sizes in the order given.
pub fn specialisations(dims: &BTreeMap<String, Vec<u64>>) -> Vec<Shape> {
    dims.iter()
        .fold(vec![Shape::default()], |shapes, (symbol, sizes)| {
            shapes
                .iter()
                .flat_map(|shape| {
                    sizes.iter().map(move |&size| {
                        let mut next = shape.clone();
                        next.0.insert(symbol.clone(), size);
                        next
                    })
                })
                .collect()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_dims_is_the_exported_example() {
        let shapes = specialisations(&BTreeMap::new());
        assert_eq!(shapes, vec![Shape::default()]);
        assert_eq!(shapes[0].to_string(), "example");
    }

    #[test]
    fn product_over_symbols_in_name_order() {
        let dims = BTreeMap::from([
            ("s1".to_owned(), vec![128, 64]),
            ("s0".to_owned(), vec![1, 8, 32]),
        ]);
        let shapes: Vec<String> = specialisations(&dims)
            .iter()
            .map(Shape::to_string)
            .collect();
        assert_eq!(
            shapes,
            [
                "s0=1,s1=128",
                "s0=1,s1=64",
                "s0=8,s1=128",
                "s0=8,s1=64",
                "s0=32,s1=128",
                "s0=32,s1=64"
            ]
        );
    }
}
