//! `--dynamic`: one module with `?` dimensions that serves every value of the program's
//! symbols. The program is lowered at a few symbol values, and the lowerings are generalised
//! into one ([`generalize`]): whatever changes with the symbols must be a sum of products of
//! them with integer coefficients ([`size_expr`]).

mod generalize;
mod size_expr;

use std::collections::{BTreeMap, BTreeSet};

use tpuc_pt2::Archive;

use crate::error::LowerError;
use crate::specialize::free_symbols;
use crate::{LowerOptions, Lowered};
use size_expr::Samples;

/// How to lower the archive's program with its symbols kept dynamic (those `options.dims`
/// does not fix): lower it at each of [`DynamicLowering::points`] (and run the middle end on
/// each, unfused), then [`DynamicLowering::generalize`] the results. `None` when no symbol is
/// left: the static lowering is the dynamic one.
pub(crate) fn plan(
    archive: &Archive,
    options: &LowerOptions,
) -> Result<Option<DynamicLowering>, LowerError> {
    let refused = [
        (options.debug, "`--debug`"),
        (!options.input_shapes.is_empty(), "`--input-shape`"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(on, _)| *on) {
        return Err(refused_with_dynamic(flag));
    }
    let symbols: BTreeMap<String, (Option<i64>, Option<i64>)> = free_symbols(archive)
        .into_iter()
        .filter(|(name, _)| !options.dims.contains_key(name))
        .collect();
    if symbols.is_empty() {
        return Ok(None);
    }
    let samples = sample_points(&symbols)?;
    Ok(Some(DynamicLowering { symbols, samples }))
}

/// `flag` cannot be combined with `--dynamic`.
pub fn refused_with_dynamic(flag: &str) -> LowerError {
    LowerError::Program {
        message: format!("{flag} does not go with `--dynamic`"),
        help: Some(format!(
            "drop {flag}, or `--dynamic`; a symbol can be fixed with `--dim NAME=N`"
        )),
    }
}

/// The symbols kept dynamic and the sizes the program is lowered at.
#[derive(Debug)]
pub struct DynamicLowering {
    symbols: BTreeMap<String, (Option<i64>, Option<i64>)>,
    samples: Samples,
}

impl DynamicLowering {
    /// The symbol values to lower at, in the order [`Self::generalize`] takes the lowerings.
    pub fn points(&self) -> &[BTreeMap<String, i64>] {
        &self.samples.points
    }

    /// One program with `?` dimensions from the lowerings at [`Self::points`]: `main` computes
    /// the shapes that change with the symbols, reads the symbols from its inputs and checks
    /// their ranges. Its interface is the first lowering's, and `dims` is empty. Shape
    /// computations are not yet deduplicated (`cse,dce` do it).
    pub fn generalize(&self, mut lowerings: Vec<Lowered>) -> Result<Lowered, LowerError> {
        if lowerings.len() != self.samples.points.len() {
            return Err(LowerError::Program {
                message: format!(
                    "--dynamic needs {} lowerings, got {}",
                    self.samples.points.len(),
                    lowerings.len()
                ),
                help: None,
            });
        }
        let mains: Vec<&tpuc_ir::Function> = lowerings
            .iter()
            .map(|l| l.program.main())
            .collect::<Result<_, _>>()?;
        let main =
            generalize::generalize(&self.samples, &self.symbols, &mains).map_err(|refusal| {
                LowerError::Shape {
                    message: format!("--dynamic: {}", refusal.message),
                    help: refusal.help,
                }
            })?;
        let mut lowered = lowerings.swap_remove(0);
        *lowered.program.main_mut()? = main;
        lowered.program.module.attrs.set(
            "jax.uses_shape_polymorphism",
            tpuc_ir::Attribute::Bool(true),
        );
        lowered.dims.clear();
        Ok(lowered)
    }
}

/// The most symbols kept dynamic: the program is lowered `2^n + 1` times.
const MAX_SYMBOLS: usize = 4;

/// Two or three sizes per symbol, and the points of [`Samples::new`] for them.
fn sample_points(
    symbols: &BTreeMap<String, (Option<i64>, Option<i64>)>,
) -> Result<Samples, LowerError> {
    if symbols.len() > MAX_SYMBOLS {
        return Err(LowerError::Shape {
            message: format!(
                "--dynamic keeps at most {MAX_SYMBOLS} symbols dynamic (each doubles the lowerings it compares); the program has {}",
                symbols.len()
            ),
            help: Some("fix the others with `--dim NAME=N`".to_owned()),
        });
    }
    let mut taken = BTreeSet::new();
    let mut chosen: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (name, &(min, max)) in symbols {
        let (low, high) = (min.unwrap_or(0).max(2), max.unwrap_or(i64::MAX));
        let values = sizes_in(low, high, &mut taken);
        if values.len() < 2 {
            return Err(LowerError::Shape {
                message: format!(
                    "--dynamic: symbol `{name}` has the range [{low}, {high}], too narrow to tell how the program depends on it"
                ),
                help: Some(format!("fix it with `--dim {name}=N`")),
            });
        }
        chosen.insert(name, values);
    }
    Ok(Samples::new(
        &chosen
            .into_iter()
            .map(|(name, sizes)| (name.to_owned(), sizes))
            .collect(),
    ))
}

/// Three sizes in `[low, high]` that no other symbol takes: primes from 11 up first, so that
/// a symbolic size rarely equals a static one or another symbol's (either could let a pass
/// simplify one lowering and not another), then smaller primes, then any size but 0 and 1.
fn sizes_in(low: i64, high: i64, taken: &mut BTreeSet<i64>) -> Vec<i64> {
    let primes = (low.max(11)..=high.min(low.max(11) + 400)).filter(|&v| is_prime(v));
    let small = (2..11).rev().filter(|&v| is_prime(v));
    let any = (low..=high.min(low + 64)).rev();
    let mut values: Vec<i64> = Vec::new();
    for v in primes.chain(small).chain(any) {
        if values.len() < 3
            && (low..=high).contains(&v)
            && !taken.contains(&v)
            && !values.contains(&v)
        {
            values.push(v);
        }
    }
    taken.extend(&values);
    values
}

fn is_prime(n: i64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_take_distinct_primes_inside_their_ranges() {
        let symbols = [
            ("a".to_owned(), (Some(1), Some(16))),
            ("b".to_owned(), (Some(2), Some(64))),
            ("c".to_owned(), (Some(2), Some(3))),
        ]
        .into();
        let samples = sample_points(&symbols).unwrap();
        let at = |k: usize| -> Vec<i64> { samples.points[k].values().copied().collect() };
        assert_eq!(samples.symbols, ["a", "b", "c"]);
        assert_eq!(at(0), [11, 17, 3], "the base");
        assert_eq!(at(1), [13, 17, 3], "a moved");
        assert_eq!(at(2), [11, 19, 3], "b moved");
        assert_eq!(at(3), [13, 19, 3], "a and b moved");
        assert_eq!(at(4), [11, 17, 2], "c moved");
        assert_eq!(
            at(8),
            [7, 23, 2],
            "the check: every symbol at its last size"
        );
        assert_eq!(samples.points.len(), 9);
        let narrow = [("d".to_owned(), (Some(4), Some(4)))].into();
        assert!(sample_points(&narrow).is_err());
    }
}
