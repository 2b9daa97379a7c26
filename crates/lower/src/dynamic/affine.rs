//! Sizes as affine functions of the program's symbols, recovered from the values one quantity
//! takes in lowerings at different symbol values.

use std::collections::BTreeMap;
use std::fmt;

/// Symbol values of one lowering, by name.
pub(super) type Point = BTreeMap<String, i64>;

/// `constant + Σ coefficient · symbol`, with integer coefficients.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Affine {
    pub constant: i64,
    /// Non-zero coefficients only.
    pub terms: BTreeMap<String, i64>,
}

impl Affine {
    pub fn constant(value: i64) -> Self {
        Self {
            constant: value,
            terms: BTreeMap::new(),
        }
    }

    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }

    /// The symbol this is exactly (`1 · s + 0`), if any.
    pub fn as_symbol(&self) -> Option<&str> {
        match self.terms.iter().next() {
            Some((name, 1)) if self.terms.len() == 1 && self.constant == 0 => Some(name),
            _ => None,
        }
    }

    pub fn eval(&self, point: &Point) -> Option<i64> {
        self.terms
            .iter()
            .try_fold(self.constant, |total, (name, c)| {
                total.checked_add(c.checked_mul(*point.get(name)?)?)
            })
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .map(|(name, &c)| match c {
                1 => name.clone(),
                c => format!("{c}*{name}"),
            })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        f.write_str(&parts.join(" + "))
    }
}

/// The lowerings a quantity is read from: `base`, then one per symbol with only that symbol
/// moved (`moved[i]` moves `symbols[i]`), then checks at other points.
#[derive(Clone, Debug)]
pub(super) struct Samples {
    pub symbols: Vec<String>,
    pub points: Vec<Point>,
}

impl Samples {
    pub fn base(&self) -> &Point {
        &self.points[0]
    }

    /// The lowering that moves symbol `i` alone.
    fn moved(&self, i: usize) -> &Point {
        &self.points[1 + i]
    }

    /// The affine function taking `values[k]` at `points[k]`, if one does.
    pub fn fit(&self, values: &[i64]) -> Option<Affine> {
        if values.iter().all(|&v| v == values[0]) {
            return Some(Affine::constant(values[0]));
        }
        let mut terms = BTreeMap::new();
        let mut constant = values[0];
        for (i, name) in self.symbols.iter().enumerate() {
            let step = self.moved(i)[name] - self.base()[name];
            let change = values[1 + i] - values[0];
            if change % step != 0 {
                return None;
            }
            let coefficient = change / step;
            if coefficient != 0 {
                constant -= coefficient * self.base()[name];
                terms.insert(name.clone(), coefficient);
            }
        }
        let affine = Affine { constant, terms };
        self.points
            .iter()
            .zip(values)
            .all(|(point, &v)| affine.eval(point) == Some(v))
            .then_some(affine)
    }

    /// A floating-point constant as a function of the symbols: an integer affine function, or
    /// the reciprocal of one (a mean's `1/n`), exact to the constant's precision.
    pub fn fit_float(&self, values: &[f64]) -> Option<FloatForm> {
        let close = |want: f64, got: f64| (want - got).abs() <= 1e-6 * want.abs().max(1.0);
        let integers = |values: &[f64]| -> Option<Vec<i64>> {
            values
                .iter()
                .map(|&v| {
                    let rounded = v.round();
                    (close(v, rounded) && rounded.abs() < 1e15).then_some(rounded as i64)
                })
                .collect()
        };
        if let Some(affine) = integers(values).and_then(|v| self.fit(&v)) {
            return Some(FloatForm::Affine(affine));
        }
        let reciprocals: Vec<f64> = values.iter().map(|v| 1.0 / v).collect();
        let affine = integers(&reciprocals).and_then(|v| self.fit(&v))?;
        self.points
            .iter()
            .zip(values)
            .all(|(point, &v)| affine.eval(point).is_some_and(|d| close(v, 1.0 / d as f64)))
            .then_some(FloatForm::Reciprocal(affine))
    }
}

/// What a floating-point constant is, in terms of the symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum FloatForm {
    Affine(Affine),
    Reciprocal(Affine),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(points: &[&[(&str, i64)]]) -> Samples {
        let points: Vec<Point> = points
            .iter()
            .map(|p| p.iter().map(|&(n, v)| (n.to_owned(), v)).collect())
            .collect();
        Samples {
            symbols: points[0].keys().cloned().collect(),
            points,
        }
    }

    #[test]
    fn fits_affine_sizes_of_two_symbols_and_rejects_products() {
        let s = samples(&[
            &[("a", 13), ("b", 17)],
            &[("a", 19), ("b", 17)],
            &[("a", 13), ("b", 23)],
            &[("a", 29), ("b", 31)],
        ]);
        let fitted = s.fit(&[
            2 * 13 + 17 - 1,
            2 * 19 + 17 - 1,
            2 * 13 + 23 - 1,
            2 * 29 + 31 - 1,
        ]);
        assert_eq!(fitted.unwrap().to_string(), "2*a + b + -1");
        assert_eq!(s.fit(&[5, 5, 5, 5]), Some(Affine::constant(5)));
        assert_eq!(s.fit(&[13 * 17, 19 * 17, 13 * 23, 29 * 31]), None);
        assert_eq!(s.fit(&[13 / 2, 19 / 2, 13 / 2, 29 / 2]), None);
    }

    #[test]
    fn fits_means_as_reciprocals() {
        let s = samples(&[&[("n", 13)], &[("n", 17)], &[("n", 19)]]);
        let inverse = [13.0f32, 17.0, 19.0].map(|n| f64::from(1.0 / n));
        let symbol = Affine {
            constant: 0,
            terms: [("n".to_owned(), 1)].into(),
        };
        assert_eq!(
            s.fit_float(&inverse),
            Some(FloatForm::Reciprocal(symbol.clone()))
        );
        assert_eq!(
            s.fit_float(&[13.0, 17.0, 19.0]),
            Some(FloatForm::Affine(symbol))
        );
        assert_eq!(s.fit_float(&[13.5, 17.0, 19.0]), None);
    }
}
