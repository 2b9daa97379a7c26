//! Sizes as functions of the program's symbols, recovered from the values one quantity takes
//! in lowerings at different symbol values: multilinear polynomials with integer
//! coefficients (`2*s0 + 1`, `s0*s1` for a flattened batch and sequence).

use std::collections::BTreeMap;
use std::fmt;

/// Symbol values of one lowering, by name.
pub(super) type Point = BTreeMap<String, i64>;

/// `constant + Σ coefficient · Π symbols`, each product of distinct symbols, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct SizeExpr {
    pub constant: i64,
    /// Non-zero coefficients only, by product (a non-empty sorted list of symbols).
    pub terms: BTreeMap<Vec<String>, i64>,
}

impl SizeExpr {
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
            Some((product, 1)) if self.terms.len() == 1 && self.constant == 0 => {
                match product.as_slice() {
                    [symbol] => Some(symbol),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub fn uses(&self, symbol: &str) -> bool {
        self.terms.keys().any(|p| p.iter().any(|s| s == symbol))
    }

    pub fn eval(&self, point: &Point) -> Option<i64> {
        self.terms
            .iter()
            .try_fold(self.constant, |total, (product, c)| {
                let value = product
                    .iter()
                    .try_fold(*c, |v, name| v.checked_mul(*point.get(name)?))?;
                total.checked_add(value)
            })
    }
}

impl fmt::Display for SizeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .map(|(product, &c)| match c {
                1 => product.join("*"),
                c => format!("{c}*{}", product.join("*")),
            })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        f.write_str(&parts.join(" + "))
    }
}

/// The lowerings a quantity is read from: the corners of a grid of two sizes per symbol
/// (corner `m` has symbol `i` at its second size when bit `i` of `m` is set), then a check at
/// each symbol's last size.
#[derive(Clone, Debug)]
pub(super) struct Samples {
    pub symbols: Vec<String>,
    pub points: Vec<Point>,
}

impl Samples {
    /// The points for `sizes` (two or three per symbol, in symbol order): the grid corners,
    /// and the check point when it differs from them all.
    pub fn new(sizes: &BTreeMap<String, Vec<i64>>) -> Self {
        let symbols: Vec<String> = sizes.keys().cloned().collect();
        let mut points: Vec<Point> = (0..1usize << symbols.len())
            .map(|corner| {
                symbols
                    .iter()
                    .enumerate()
                    .map(|(i, name)| (name.clone(), sizes[name][(corner >> i) & 1]))
                    .collect()
            })
            .collect();
        let check: Point = sizes
            .iter()
            .map(|(name, values)| (name.clone(), *values.last().expect("two sizes at least")))
            .collect();
        if !points.contains(&check) {
            points.push(check);
        }
        Self { symbols, points }
    }

    /// The multilinear polynomial with integer coefficients taking `values[k]` at
    /// `points[k]`, if one does.
    pub fn fit(&self, values: &[i64]) -> Option<SizeExpr> {
        if values.iter().all(|&v| v == values[0]) {
            return Some(SizeExpr::constant(values[0]));
        }
        let k = self.symbols.len();
        let low: Vec<i64> = self.symbols.iter().map(|s| self.points[0][s]).collect();
        let step: Vec<i64> = (0..k)
            .map(|i| self.points[1 << i][&self.symbols[i]] - low[i])
            .collect();
        // f = Σ_S d_S Π_{i∈S} (x_i - low_i) / step_i, with d_S the S-th finite difference
        // over the corners; then expanded into products of the symbols.
        let mut coefficients = vec![Ratio::ZERO; 1 << k];
        for set in 0..1usize << k {
            let difference: i128 = (0..1usize << k)
                .filter(|sub| sub & !set == 0)
                .map(|sub| {
                    let sign = if (set & !sub).count_ones() % 2 == 0 {
                        1
                    } else {
                        -1
                    };
                    sign * i128::from(values[sub])
                })
                .sum();
            let scale: i128 = bits(set).map(|i| i128::from(step[i])).product();
            for product in (0..1usize << k).filter(|p| p & !set == 0) {
                let shift: i128 = bits(set & !product).map(|i| -i128::from(low[i])).product();
                coefficients[product] =
                    coefficients[product].add(Ratio::new(difference * shift, scale)?)?;
            }
        }
        let mut expr = SizeExpr::constant(coefficients[0].integer()?);
        for (product, c) in coefficients.iter().enumerate().skip(1) {
            let c = c.integer()?;
            if c != 0 {
                let names = bits(product).map(|i| self.symbols[i].clone()).collect();
                expr.terms.insert(names, c);
            }
        }
        self.points
            .iter()
            .zip(values)
            .all(|(point, &v)| expr.eval(point) == Some(v))
            .then_some(expr)
    }

    /// A floating-point constant as a function of the symbols: a size, or the reciprocal of
    /// one (a mean's `1/n`), exact to the constant's precision.
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
        if let Some(expr) = integers(values).and_then(|v| self.fit(&v)) {
            return Some(FloatForm::Size(expr));
        }
        let reciprocals: Vec<f64> = values.iter().map(|v| 1.0 / v).collect();
        let expr = integers(&reciprocals).and_then(|v| self.fit(&v))?;
        self.points
            .iter()
            .zip(values)
            .all(|(point, &v)| expr.eval(point).is_some_and(|d| close(v, 1.0 / d as f64)))
            .then_some(FloatForm::Reciprocal(expr))
    }
}

/// The positions of the set bits of `mask`.
fn bits(mask: usize) -> impl Iterator<Item = usize> {
    (0..usize::BITS as usize).filter(move |i| mask >> i & 1 == 1)
}

/// An exact fraction, for the fit.
#[derive(Clone, Copy, Debug)]
struct Ratio {
    numerator: i128,
    denominator: i128,
}

impl Ratio {
    const ZERO: Ratio = Ratio {
        numerator: 0,
        denominator: 1,
    };

    fn new(numerator: i128, denominator: i128) -> Option<Self> {
        if denominator == 0 {
            return None;
        }
        let divisor = gcd(numerator, denominator) * denominator.signum();
        Some(Self {
            numerator: numerator / divisor,
            denominator: denominator / divisor,
        })
    }

    fn add(self, other: Ratio) -> Option<Ratio> {
        let numerator = self
            .numerator
            .checked_mul(other.denominator)?
            .checked_add(other.numerator.checked_mul(self.denominator)?)?;
        Ratio::new(numerator, self.denominator.checked_mul(other.denominator)?)
    }

    fn integer(self) -> Option<i64> {
        (self.denominator == 1)
            .then(|| i64::try_from(self.numerator).ok())
            .flatten()
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// What a floating-point constant is, in terms of the symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum FloatForm {
    Size(SizeExpr),
    Reciprocal(SizeExpr),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(sizes: &[(&str, &[i64])]) -> Samples {
        Samples::new(
            &sizes
                .iter()
                .map(|&(n, v)| (n.to_owned(), v.to_vec()))
                .collect(),
        )
    }

    fn values(samples: &Samples, f: impl Fn(i64, i64) -> i64) -> Vec<i64> {
        samples.points.iter().map(|p| f(p["a"], p["b"])).collect()
    }

    #[test]
    fn fits_sums_and_products_of_two_symbols_and_rejects_the_rest() {
        let s = samples(&[("a", &[11, 13, 7]), ("b", &[17, 19, 23])]);
        assert_eq!(s.points.len(), 5, "four corners and a check");
        let fit = |f: &dyn Fn(i64, i64) -> i64| s.fit(&values(&s, f)).map(|e| e.to_string());
        assert_eq!(fit(&|a, b| 2 * a + b - 1).as_deref(), Some("2*a + b + -1"));
        assert_eq!(fit(&|a, b| a * b).as_deref(), Some("a*b"));
        assert_eq!(fit(&|a, b| 3 * a * b + 4).as_deref(), Some("3*a*b + 4"));
        assert_eq!(fit(&|_, _| 5).as_deref(), Some("5"));
        assert_eq!(fit(&|a, b| a * a + b), None, "a square");
        assert_eq!(fit(&|a, _| a / 2), None, "a floor division");
    }

    #[test]
    fn fits_means_as_reciprocals() {
        let s = samples(&[("n", &[13, 17, 19])]);
        let inverse = [13.0f32, 17.0, 19.0].map(|n| f64::from(1.0 / n));
        let n = SizeExpr {
            constant: 0,
            terms: [(vec!["n".to_owned()], 1)].into(),
        };
        assert_eq!(
            s.fit_float(&inverse),
            Some(FloatForm::Reciprocal(n.clone()))
        );
        assert_eq!(s.fit_float(&[13.0, 17.0, 19.0]), Some(FloatForm::Size(n)));
        assert_eq!(s.fit_float(&[13.5, 17.0, 19.0]), None);
    }
}
