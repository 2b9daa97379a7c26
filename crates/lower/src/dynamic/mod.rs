//! `--dynamic`: one module with `?` dimensions that serves every value of the program's
//! symbols. The program is lowered at a few symbol values, and the lowerings are generalised
//! into one ([`generalize`]): whatever changes with a symbol must be an affine function of it.

mod affine;
mod generalize;

use std::collections::BTreeMap;

use tpuc_pt2::Archive;

use crate::error::LowerError;
use crate::specialize::free_symbols;
use crate::{LowerOptions, Lowered};
use affine::{Point, Samples};

/// Sizes tried for a symbol, in order: primes, so that a symbolic size rarely equals a
/// static one (which could let a pass simplify one lowering and not another).
const CANDIDATES: [i64; 12] = [13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59];

/// Lowers the archive's program with its symbols kept dynamic (those `options.dims` or
/// `options.input_shapes` do not fix). The module is unfused and unsharded; its argument and
/// result bindings give the shapes of the first lowering, and `dims` is empty.
pub(crate) fn lower(archive: &Archive, options: &LowerOptions) -> Result<Lowered, LowerError> {
    let refused = [
        (options.sharding.is_some(), "`--shard`"),
        (options.debug, "`--debug`"),
        (options.passes.kernels.is_some(), "`--kernels`"),
        (!options.input_shapes.is_empty(), "`--input-shape`"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(on, _)| *on) {
        return Err(LowerError::Program {
            message: format!("{flag} does not go with `--dynamic`"),
            help: Some(format!(
                "drop {flag}, or `--dynamic`; a symbol can be fixed with `--dim NAME=N`"
            )),
        });
    }
    let symbols: BTreeMap<String, (Option<i64>, Option<i64>)> = free_symbols(archive)
        .into_iter()
        .filter(|(name, _)| !options.dims.contains_key(name))
        .collect();
    let mut unfused = options.clone();
    unfused.passes.pipeline = without_fusion(&options.passes.pipeline);
    if symbols.is_empty() {
        return crate::lowering::lower(archive, &unfused);
    }
    let samples = sample_points(&symbols)?;
    let mut lowerings = Vec::with_capacity(samples.points.len());
    for point in &samples.points {
        let mut at_point = unfused.clone();
        at_point.dims.extend(point.clone());
        lowerings.push(crate::lowering::lower(archive, &at_point)?);
    }
    let mains: Vec<&tpuc_ir::Function> = lowerings
        .iter()
        .map(|l| {
            l.module
                .function("main")
                .expect("a lowered module has `main`")
        })
        .collect();
    let main = generalize::generalize(&samples, &symbols, &mains).map_err(|refusal| {
        LowerError::Shape {
            message: format!("--dynamic: {}", refusal.message),
            help: refusal.help,
        }
    })?;
    let mut lowered = lowerings.swap_remove(0);
    *lowered
        .module
        .function_mut("main")
        .expect("a lowered module has `main`") = main;
    // The shapes of ops that share them are computed once.
    tpuc_passes::Pipeline::parse("cse,dce")?
        .run(&mut lowered.module, &tpuc_passes::RunOptions::default())?;
    tpuc_ir::verify(&lowered.module).map_err(|errors| LowerError::Shape {
        message: format!("--dynamic: the generalised module does not verify: {errors}"),
        help: Some("this is a bug in tpuc; please report it with the model".to_owned()),
    })?;
    lowered.module.attrs.set(
        "jax.uses_shape_polymorphism",
        tpuc_ir::Attribute::Bool(true),
    );
    lowered.dims.clear();
    Ok(lowered)
}

/// The pipeline without the fusion pass: composites are outlined for static shapes.
fn without_fusion(pipeline: &str) -> String {
    let kept: Vec<&str> = pipeline
        .split(',')
        .filter(|name| name.trim() != "fuse")
        .collect();
    kept.join(",")
}

/// A base point, one point per symbol moving it alone, and a check point moving them all.
fn sample_points(
    symbols: &BTreeMap<String, (Option<i64>, Option<i64>)>,
) -> Result<Samples, LowerError> {
    let mut chosen: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (name, &(min, max)) in symbols {
        let (low, high) = (min.unwrap_or(0).max(2), max.unwrap_or(i64::MAX));
        let mut values: Vec<i64> = CANDIDATES
            .iter()
            .copied()
            .filter(|v| (low..=high).contains(v))
            .take(3)
            .collect();
        // A narrow range: its own values, largest first (1 and 0 let passes simplify).
        let mut extra = high.min(low + 64);
        while values.len() < 3 && extra >= low {
            if !values.contains(&extra) {
                values.push(extra);
            }
            extra -= 1;
        }
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
    let base: Point = chosen.iter().map(|(n, v)| (n.to_string(), v[0])).collect();
    let mut points = vec![base.clone()];
    for (name, values) in &chosen {
        let mut moved = base.clone();
        moved.insert(name.to_string(), values[1]);
        points.push(moved);
    }
    let check: Point = chosen
        .iter()
        .map(|(n, v)| (n.to_string(), *v.last().expect("two values at least")))
        .collect();
    if chosen.len() > 1 || chosen.values().all(|v| v.len() > 2) {
        points.push(check);
    }
    Ok(Samples {
        symbols: chosen.keys().map(|n| n.to_string()).collect(),
        points,
    })
}
