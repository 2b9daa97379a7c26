//! Symbol values for one compile: given by the user (`dims`, or solved from `input_shapes`),
//! else the example's hints; checked against the program's range constraints.

use std::collections::BTreeMap;

use tpuc_pt2::schema::{Graph, SymInt, TensorMeta};
use tpuc_pt2::{Archive, DType, SymExpr};

use crate::LowerOptions;
use crate::dtype::element_type;
use crate::error::{LowerError, OpError, OpResult};

/// The value of every symbol of the program, for this compile.
#[derive(Clone, Debug, Default)]
pub(crate) struct Symbols {
    values: BTreeMap<String, i64>,
}

impl Symbols {
    pub fn values(&self) -> &BTreeMap<String, i64> {
        &self.values
    }

    pub fn eval_expr(&self, expr: &SymExpr) -> OpResult<i64> {
        expr.eval_with(&|name| self.values.get(name).copied())
            .map_err(|e| {
                let expr = tpuc_pt2::quoted(&expr.to_string()).into_owned();
                OpError::new(format!("cannot evaluate the symbolic size `{expr}`: {e}")).with_help(
                    "tpuc specialises every dynamic dimension at compile time; data-dependent sizes are not supported yet",
                )
            })
    }

    pub fn eval(&self, value: &SymInt) -> OpResult<i64> {
        match value {
            SymInt::AsInt(v) => Ok(*v),
            SymInt::AsExpr(record) => {
                let expr = record
                    .parse()
                    .map_err(|e| OpError::new(format!("bad symbolic size: {e}")))?;
                self.eval_expr(&expr)
            }
            SymInt::Unknown(key) => Err(OpError::new(format!("unknown SymInt kind `{key}`"))),
        }
    }

    /// The static sizes of a tensor.
    pub fn sizes(&self, meta: &TensorMeta) -> OpResult<Vec<i64>> {
        meta.sizes.iter().map(|s| self.eval(s)).collect()
    }

    /// The dtype of a tensor, checked to have a StableHLO element type.
    pub fn dtype(meta: &TensorMeta) -> OpResult<DType> {
        let dtype = meta
            .dtype()
            .ok_or_else(|| OpError::new(format!("unknown dtype code {}", meta.dtype_code)))?;
        element_type(dtype)?;
        Ok(dtype)
    }
}

fn shape_error(message: String, help: Option<String>) -> LowerError {
    LowerError::Shape { message, help }
}

/// Example values of symbols, from every plain-symbol size and SymInt the graphs record.
fn collect_hints(graph: &Graph, hints: &mut BTreeMap<String, i64>) {
    let mut note = |value: &SymInt| {
        if let SymInt::AsExpr(record) = value
            && let (Ok(SymExpr::Symbol(name)), Some(hint)) = (record.parse(), record.int_hint())
        {
            hints.entry(name).or_insert(hint);
        }
    };
    for meta in graph.tensor_values.values() {
        meta.sizes.iter().for_each(&mut note);
    }
    graph.sym_int_values.values().for_each(&mut note);
    for node in &graph.nodes {
        for sub in node.subgraphs() {
            collect_hints(&sub.graph, hints);
        }
    }
}

/// Chooses the symbol values for this compile.
pub(crate) fn specialize(archive: &Archive, options: &LowerOptions) -> Result<Symbols, LowerError> {
    let graph = archive.graph();
    let constraints = archive.range_constraints();
    let mut hints = BTreeMap::new();
    collect_hints(graph, &mut hints);
    let known: Vec<&str> = constraints
        .keys()
        .map(String::as_str)
        .chain(hints.keys().map(String::as_str))
        .collect();
    let known_list = || {
        if known.is_empty() {
            "the program has no symbolic dimensions".to_owned()
        } else {
            let mut names = known.clone();
            names.sort_unstable();
            names.dedup();
            format!("the program's symbols are {}", names.join(", "))
        }
    };

    let mut values: BTreeMap<String, i64> = BTreeMap::new();
    for (name, &value) in &options.dims {
        if !known.contains(&name.as_str()) {
            return Err(shape_error(
                format!("`--dim {name}={value}`: the program has no symbol `{name}`"),
                Some(known_list()),
            ));
        }
        values.insert(name.clone(), value);
    }

    let inputs = archive.user_inputs();
    let mut derived_checks = Vec::new();
    for (&index, shape) in &options.input_shapes {
        let Some(input) = inputs.get(index) else {
            return Err(shape_error(
                format!(
                    "`--input-shape {index}=...`: the program has {} user input(s)",
                    inputs.len()
                ),
                None,
            ));
        };
        let name = input.name.unwrap_or("?");
        let Some(meta) = input.meta else {
            return Err(shape_error(
                format!("`--input-shape {index}=...`: input `{name}` is not a tensor"),
                None,
            ));
        };
        if meta.sizes.len() != shape.len() {
            return Err(shape_error(
                format!(
                    "`--input-shape {index}=...`: input `{name}` has {} dimensions, the shape given has {}",
                    meta.sizes.len(),
                    shape.len()
                ),
                None,
            ));
        }
        for (axis, (size, &given)) in meta.sizes.iter().zip(shape).enumerate() {
            match size {
                SymInt::AsInt(fixed) if *fixed != given => {
                    return Err(shape_error(
                        format!(
                            "input `{name}` has the static size {fixed} in dimension {axis}, but `--input-shape` gives {given}"
                        ),
                        Some("only the program's dynamic dimensions can change".into()),
                    ));
                }
                SymInt::AsExpr(record) => {
                    let expr = record.parse().map_err(|e| {
                        shape_error(format!("input `{name}`: bad symbolic size: {e}"), None)
                    })?;
                    if let SymExpr::Symbol(symbol) = &expr {
                        match values.get(symbol) {
                            Some(&previous) if previous != given => {
                                return Err(shape_error(
                                    format!(
                                        "symbol `{symbol}` would be both {previous} and {given} (input `{name}`, dimension {axis})"
                                    ),
                                    None,
                                ));
                            }
                            _ => {
                                values.insert(symbol.clone(), given);
                            }
                        }
                    } else {
                        derived_checks.push((name.to_owned(), axis, expr, given));
                    }
                }
                _ => {}
            }
        }
    }

    for (name, hint) in hints {
        values.entry(name).or_insert(hint);
    }

    for (name, constraint) in constraints {
        let Some(&value) = values.get(name) else {
            continue;
        };
        let below = constraint.min_val.is_some_and(|min| value < min);
        let above = constraint.max_val.is_some_and(|max| value > max);
        if below || above {
            let bound = |b: Option<i64>| b.map_or("∞".to_owned(), |v| v.to_string());
            return Err(shape_error(
                format!(
                    "symbol `{name}` = {value} is outside the range [{}, {}] the program was exported for",
                    bound(constraint.min_val),
                    bound(constraint.max_val)
                ),
                Some("choose a size inside the range, or re-export with a wider `Dim`".into()),
            ));
        }
    }

    let symbols = Symbols { values };
    for (name, axis, expr, given) in derived_checks {
        let value = symbols
            .eval_expr(&expr)
            .map_err(|e| shape_error(e.message, e.help))?;
        if value != given {
            return Err(shape_error(
                format!(
                    "input `{name}` dimension {axis} is `{expr}` = {value} for the chosen symbols, but `--input-shape` gives {given}"
                ),
                Some("give the plain symbols with `--dim`".into()),
            ));
        }
    }
    Ok(symbols)
}

/// The symbols that are the size of some tensor dimension of the program, with the range each
/// was exported for (`None`: unbounded on that side).
pub(crate) fn free_symbols(archive: &Archive) -> BTreeMap<String, (Option<i64>, Option<i64>)> {
    let mut hints = BTreeMap::new();
    collect_hints(archive.graph(), &mut hints);
    let constraints = archive.range_constraints();
    hints
        .into_keys()
        .map(|name| {
            let range = constraints
                .get(&name)
                .map_or((None, None), |c| (c.min_val, c.max_val));
            (name, range)
        })
        .collect()
}
