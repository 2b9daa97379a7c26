//! Shapes for serving: dimensions named by torch's symbol or by an input's axis, size lists and
//! power-of-two buckets, and the smallest compiled bucket that holds a request's shape.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use tpuc_cache::{Bucket, NoBucket, ShapeRecord};
use tpuc_pt2::{Archive, Dim};

use crate::error::{DriverError, Result};

/// A dimension as a user names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimName {
    /// torch's symbol, as `tpuc inspect` lists it (`s27`).
    Symbol(String),
    /// An axis of a user input, the input named or numbered: `input_ids.1`, `0.1`.
    Axis { input: String, axis: usize },
}

impl FromStr for DimName {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text.is_empty() {
            return Err("the dimension's name is empty".to_owned());
        }
        if let Some((input, axis)) = text.rsplit_once('.')
            && !input.is_empty()
        {
            let axis = axis.parse().map_err(|_| {
                format!("`{text}`: after the input's name comes an axis number, not `{axis}`")
            })?;
            return Ok(DimName::Axis {
                input: input.to_owned(),
                axis,
            });
        }
        Ok(DimName::Symbol(text.to_owned()))
    }
}

impl fmt::Display for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DimName::Symbol(symbol) => f.write_str(symbol),
            DimName::Axis { input, axis } => write!(f, "{input}.{axis}"),
        }
    }
}

/// Sizes for one dimension: `NAME=N` or `NAME=N,M,...` (`--dim`), `NAME=pow2:LO..HI`
/// (`--buckets`: LO, 2·LO, 4·LO, ... up to HI).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimSizes {
    pub name: DimName,
    pub sizes: Vec<i64>,
}

impl DimSizes {
    /// `NAME=N[,M...]`.
    pub fn parse_list(text: &str) -> Result<Self, String> {
        let (name, sizes) =
            split_assignment(text, "NAME=N[,M...] such as s77=8 or input_ids.1=128,256")?;
        let sizes = sizes
            .split(',')
            .map(parse_size)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DimSizes { name, sizes })
    }

    /// `NAME=pow2:LO..HI`.
    pub fn parse_buckets(text: &str) -> Result<Self, String> {
        let (name, spec) =
            split_assignment(text, "NAME=pow2:LO..HI such as input_ids.1=pow2:128..2048")?;
        let sizes = tpuc_prewarm::pow2_sizes(spec)?
            .into_iter()
            .map(|size| i64::try_from(size).map_err(|_| format!("{size} is too large")))
            .collect::<Result<_, _>>()?;
        Ok(DimSizes { name, sizes })
    }
}

fn split_assignment<'a>(text: &'a str, expected: &str) -> Result<(DimName, &'a str), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected {expected}, got `{text}`"))?;
    Ok((name.parse()?, value))
}

fn parse_size(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(size) if size > 0 => Ok(size),
        Ok(size) => Err(format!("a size must be positive, not {size}")),
        Err(_) => Err(format!("`{text}` is not a size")),
    }
}

/// Every combination of the sizes given: a map from symbol to size per shape, over symbols in
/// name order, each symbol's sizes ascending. Axis names become the symbol they are.
/// The archive is opened only when a name is an input's axis.
pub fn specialisations(model: &Path, dims: &[DimSizes]) -> Result<Vec<BTreeMap<String, i64>>> {
    let mut archive: Option<Archive> = None;
    let mut by_symbol: BTreeMap<String, (String, Vec<i64>)> = BTreeMap::new();
    for dim in dims {
        let symbol = match &dim.name {
            DimName::Symbol(symbol) => symbol.clone(),
            DimName::Axis { input, axis } => {
                let archive = match &mut archive {
                    Some(archive) => archive,
                    empty => empty.insert(open_for_axes(model)?),
                };
                symbol_of(archive, input, *axis)?
            }
        };
        let named = dim.name.to_string();
        if let Some((first, _)) = by_symbol.get(&symbol) {
            return Err(shape_error(
                format!("`{named}` and `{first}` are the same dimension (`{symbol}`)"),
                Some("give its sizes once, as one list".to_owned()),
            ));
        }
        let mut sizes = dim.sizes.clone();
        sizes.sort_unstable();
        sizes.dedup();
        by_symbol.insert(symbol, (named, sizes));
    }
    Ok(by_symbol
        .into_iter()
        .fold(vec![BTreeMap::new()], |shapes, (symbol, (_, sizes))| {
            shapes
                .iter()
                .flat_map(|shape| {
                    sizes.iter().map(|&size| {
                        let mut next = shape.clone();
                        next.insert(symbol.clone(), size);
                        next
                    })
                })
                .collect()
        }))
}

/// The archive whose inputs' axes name dimensions; StableHLO text has no input names.
fn open_for_axes(model: &Path) -> Result<Archive> {
    if crate::frontend::is_mlir(model) {
        return Err(shape_error(
            format!(
                "{} is StableHLO text: its dimensions have no input names",
                model.display()
            ),
            Some("name dimensions of a .pt2 archive as INPUT.AXIS".to_owned()),
        ));
    }
    Ok(Archive::open(model)?)
}

/// The symbol axis `axis` of user input `input` (its name or position) is.
fn symbol_of(archive: &Archive, input: &str, axis: usize) -> Result<String> {
    let name = format!("{input}.{axis}");
    let inputs = archive.user_inputs();
    let names: Vec<&str> = inputs.iter().map(|io| io.name.unwrap_or("?")).collect();
    let found = inputs
        .iter()
        .position(|io| io.name == Some(input))
        .or_else(|| input.parse::<usize>().ok().filter(|&i| i < inputs.len()));
    let Some(index) = found else {
        return Err(shape_error(
            format!("`{name}`: the program has no user input `{input}`"),
            Some(format!("its inputs are {}", names.join(", "))),
        ));
    };
    let shown = names[index];
    let shape = inputs[index]
        .meta
        .map(|meta| meta.shape())
        .transpose()
        .map_err(|e| shape_error(format!("`{name}`: input `{shown}`'s shape: {e}"), None))?
        .ok_or_else(|| shape_error(format!("`{name}`: input `{shown}` is not a tensor"), None))?;
    let Some(dim) = shape.get(axis) else {
        return Err(shape_error(
            format!(
                "`{name}`: input `{shown}` has {} dimensions, so no axis {axis}",
                shape.len()
            ),
            None,
        ));
    };
    match dim {
        Dim::Static(size) => Err(shape_error(
            format!("`{name}`: axis {axis} of `{shown}` is static (size {size})"),
            Some("only dimensions torch exported as dynamic (`Dim(...)`) take sizes".to_owned()),
        )),
        Dim::Symbolic { expr, .. } => match expr.as_symbol() {
            Some(symbol) => Ok(symbol.to_owned()),
            None => {
                let symbols: Vec<&str> = expr.free_symbols().into_iter().collect();
                Err(shape_error(
                    format!("`{name}`: axis {axis} of `{shown}` is `{expr}`, not one symbol"),
                    Some(format!("give sizes to {} instead", symbols.join(", "))),
                ))
            }
        },
    }
}

/// For each symbol, the input axes that are exactly it (`s27` → `tokens.1`), for `inspect`.
pub fn axis_names(archive: &Archive) -> Result<BTreeMap<String, Vec<String>>> {
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (index, io) in archive.user_inputs().iter().enumerate() {
        let Some(meta) = io.meta else { continue };
        let input = io.name.map_or_else(|| index.to_string(), str::to_owned);
        let shape = meta
            .shape()
            .map_err(|e| shape_error(format!("input `{input}`'s shape: {e}"), None))?;
        for (axis, dim) in shape.iter().enumerate() {
            if let Dim::Symbolic { expr, .. } = dim
                && let Some(symbol) = expr.as_symbol()
            {
                names
                    .entry(symbol.to_owned())
                    .or_default()
                    .push(format!("{input}.{axis}"));
            }
        }
    }
    Ok(names)
}

/// A request's input shapes: `NAME=AxBx...`, by input name.
pub fn parse_shape(text: &str) -> Result<(String, Vec<i64>), String> {
    let (input, shape) = text
        .split_once('=')
        .ok_or_else(|| format!("expected INPUT=AxB... such as input_ids=1x300, got `{text}`"))?;
    if input.is_empty() {
        return Err("the input's name is empty".to_owned());
    }
    let shape = shape
        .split('x')
        .map(parse_size)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((input.to_owned(), shape))
}

/// The smallest of `target`'s recorded shapes that holds every requested input shape
/// ([`tpuc_cache::smallest_bucket`]), or a diagnostic saying why none does.
pub fn smallest_bucket(
    records: &[ShapeRecord],
    target: &str,
    request: &[(String, Vec<i64>)],
) -> Result<Bucket> {
    tpuc_cache::smallest_bucket(records, target, request).map_err(|missing| match missing {
        NoBucket::NoRecords => shape_error(
            format!("no shape of this program is recorded for {target}"),
            Some(format!(
                "compile it for {target} first (`tpuc compile` and `tpuc prewarm` write the \
                 shape index; --dim lists and --buckets compile several shapes)"
            )),
        ),
        NoBucket::UnknownInput { input, inputs } => shape_error(
            format!("the program has no input `{input}`"),
            Some(format!("its inputs are {}", inputs.join(", "))),
        ),
        NoBucket::TooLarge { buckets } => {
            let shown: Vec<String> = request
                .iter()
                .map(|(n, s)| format!("{n}={}", join_x(s)))
                .collect();
            shape_error(
                format!("no compiled bucket for {target} holds {}", shown.join(" ")),
                Some(format!(
                    "the buckets are: {}; compile a larger one with --dim or --buckets",
                    buckets.join("; ")
                )),
            )
        }
    })
}

fn join_x(shape: &[i64]) -> String {
    shape
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

fn shape_error(message: String, help: Option<String>) -> DriverError {
    DriverError::Shape { message, help }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_symbols_or_input_axes() {
        assert_eq!("s27".parse(), Ok(DimName::Symbol("s27".to_owned())));
        assert_eq!(
            "input_ids.1".parse(),
            Ok(DimName::Axis {
                input: "input_ids".to_owned(),
                axis: 1
            })
        );
        assert!("input_ids.x".parse::<DimName>().is_err());
    }

    #[test]
    fn pow2_buckets_double_up_to_the_bound() {
        let dims = DimSizes::parse_buckets("s27=pow2:128..2048").unwrap();
        assert_eq!(dims.sizes, [128, 256, 512, 1024, 2048]);
        let dims = DimSizes::parse_buckets("s27=pow2:3..20").unwrap();
        assert_eq!(dims.sizes, [3, 6, 12]);
        assert!(DimSizes::parse_buckets("s27=128..2048").is_err());
        assert!(DimSizes::parse_buckets("s27=pow2:64..8").is_err());
        assert!(DimSizes::parse_list("s27=8,0").is_err());
        assert_eq!(DimSizes::parse_list("s27=8,4").unwrap().sizes, [8, 4]);
    }
}
