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
