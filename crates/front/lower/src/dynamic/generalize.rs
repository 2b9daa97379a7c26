//! One dynamic `main` from static lowerings of the same program at different symbol values.
//!
//! The lowerings must have the same ops in the same order; each size, slice bound, padding or
//! constant that differs between them must be a sum of products of the symbols with integer
//! coefficients (a constant may also be the reciprocal of one). The first lowering is
//! rewritten in place: such dimensions become `?`, the symbols are read from `main`'s
//! arguments with `get_dimension_size`, and every op whose static attributes or result type
//! fix a size becomes its dynamic form (`dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_iota`,
//! `real_dynamic_slice`, `dynamic_pad`, `dynamic_gather`) fed by shapes computed from them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tpuc_ir::{
    Attribute, BinaryOp, ComparisonDirection, CustomCallApiVersion, CustomCallOptions,
    DenseElements, Dim, ElementType, ElementValue, Function, InsertPoint, Location, OpBuilder,
    OpId, OpKind, TensorType, Type, Value,
};

use super::size_expr::{FloatForm, Samples, SizeExpr};

/// Why the lowerings could not be generalised.
#[derive(Debug)]
pub(super) struct Refusal {
    pub message: String,
    pub help: Option<String>,
}

type Refused<T> = Result<T, Refusal>;

impl From<tpuc_ir::IrError> for Refusal {
    fn from(error: tpuc_ir::IrError) -> Self {
        refuse(error.to_string())
    }
}

fn refuse(message: String) -> Refusal {
    Refusal {
        message,
        help: Some(
            "fix the symbol with `--dim NAME=N` (or compile shape buckets with `--dim NAME=N,M,...`)"
                .to_owned(),
        ),
    }
}

/// A dimension of a generalised type: static, or a function of the symbols.
type DimExpr = Option<SizeExpr>;

/// How an op's attributes depend on the symbols.
enum Attributes {
    Constant(ScalarExpr),
    Slice {
        start: Vec<SizeExpr>,
        limit: Vec<SizeExpr>,
        strides: Vec<i64>,
    },
    Pad {
        low: Vec<SizeExpr>,
        high: Vec<SizeExpr>,
        interior: Vec<SizeExpr>,
    },
    Gather {
        slice_sizes: Vec<SizeExpr>,
    },
}

/// The value of a splat constant that depends on the symbols.
enum ScalarExpr {
    Integer(SizeExpr),
    Float(FloatForm),
}

/// Rewrites `functions[0]` (lowered at `samples.points[0]`) into the dynamic form that also
/// gives `functions[k]` at every `samples.points[k]`.
pub(super) fn generalize(
    samples: &Samples,
    ranges: &Ranges,
    functions: &[&Function],
) -> Refused<Function> {
    let base = functions[0];
    let walks: Vec<Vec<OpId>> = functions.iter().map(|f| f.walk()).collect();
    let maps = functions[1..]
        .iter()
        .zip(&walks[1..])
        .map(|(f, walk)| align(base, &walks[0], f, walk))
        .collect::<Refused<Vec<_>>>()?;
    let others: Vec<(&Function, &HashMap<Value, Value>)> =
        functions[1..].iter().copied().zip(&maps).collect();

    let mut dims: HashMap<Value, Vec<DimExpr>> = HashMap::new();
    for value in values_of(base, &walks[0]) {
        if let Some(exprs) = dim_exprs(samples, base, value, &others)? {
            dims.insert(value, exprs);
        }
    }
    let mut attributes: HashMap<OpId, Attributes> = HashMap::new();
    for (k, &op) in walks[0].iter().enumerate() {
        let kinds: Vec<&OpKind> = functions
            .iter()
            .zip(&walks)
            .map(|(f, walk)| &f.op(walk[k]).kind)
            .collect();
        if kinds.iter().all(|kind| *kind == kinds[0]) {
            continue;
        }
        let result = base.op(op).results.first().map(|&r| base.value_type(r));
        let change = attributes_of(samples, &kinds, result).ok_or_else(|| {
            refuse(format!(
                "{} depends on {}",
                describe(base, op),
                symbol_list(samples)
            ))
        })?;
        attributes.insert(op, change);
    }

    let mut function = base.clone();
    Rewriter::new(&mut function, ranges, dims, attributes)?.run(&walks[0])?;
    Ok(function)
}

fn symbol_list(samples: &Samples) -> String {
    samples.symbols.join(", ")
}

fn describe(function: &Function, op: OpId) -> String {
    let operation = function.op(op);
    let name = operation.kind.name();
    match operation.location.node_name() {
        Some(node) => format!("`{name}` (lowered from node `{node}`)"),
        None => format!("`{name}`"),
    }
}

/// Pairs the values of `other` with `base`'s: same ops in the same order, same wiring.
fn align(
    base: &Function,
    base_walk: &[OpId],
    other: &Function,
    other_walk: &[OpId],
) -> Refused<HashMap<Value, Value>> {
    let differs = |what: String| {
        refuse(format!(
            "the program's structure depends on its symbolic sizes ({what}), so no one module serves every size"
        ))
    };
    if base_walk.len() != other_walk.len() || base.args().len() != other.args().len() {
        return Err(differs(format!(
            "{} ops at one size, {} at another",
            base_walk.len(),
            other_walk.len()
        )));
    }
    let mut map: HashMap<Value, Value> = other
        .args()
        .iter()
        .copied()
        .zip(base.args().iter().copied())
        .collect();
    for (&a, &b) in base_walk.iter().zip(other_walk) {
        let (x, y) = (base.op(a), other.op(b));
        let same_shape = x.kind.opcode() == y.kind.opcode()
            && x.operands.len() == y.operands.len()
            && x.results.len() == y.results.len()
            && x.regions.len() == y.regions.len()
            && x.operands
                .iter()
                .zip(&y.operands)
                .all(|(&u, v)| map.get(v) == Some(&u));
        if !same_shape {
            return Err(differs(format!("{} differs", describe(base, a))));
        }
        map.extend(y.results.iter().copied().zip(x.results.iter().copied()));
        for (&rx, &ry) in x.regions.iter().zip(&y.regions) {
            let (bx, by) = (&base.region(rx).blocks, &other.region(ry).blocks);
            if bx.len() != by.len() {
                return Err(differs(format!("{} differs", describe(base, a))));
            }
            for (&kx, &ky) in bx.iter().zip(by) {
                let args = base.block(kx).args.iter().copied();
                map.extend(other.block(ky).args.iter().copied().zip(args));
            }
        }
    }
    // The map goes from `other`'s values to `base`'s; callers look up the other way.
    Ok(map.into_iter().map(|(o, b)| (b, o)).collect())
}

/// `main`'s arguments, then every op's results and its regions' block arguments.
fn values_of(function: &Function, walk: &[OpId]) -> Vec<Value> {
    let mut values = function.args().to_vec();
    for &op in walk {
        let operation = function.op(op);
        values.extend(&operation.results);
        for &region in &operation.regions {
            for &block in &function.region(region).blocks {
                values.extend(&function.block(block).args);
            }
        }
    }
    values
}

/// The dimensions of `value` as functions of the symbols; `None` if all are static.
fn dim_exprs(
    samples: &Samples,
    base: &Function,
    value: Value,
    others: &[(&Function, &HashMap<Value, Value>)],
) -> Refused<Option<Vec<DimExpr>>> {
    let types: Vec<&Type> = std::iter::once(base.value_type(value))
        .chain(others.iter().map(|(f, map)| f.value_type(map[&value])))
        .collect();
    if types.iter().all(|ty| *ty == types[0]) {
        return Ok(None);
    }
    let tensors: Option<Vec<&TensorType>> = types.iter().map(|ty| ty.as_tensor()).collect();
    let what = || match base.value(value).def {
        tpuc_ir::ValueDef::OpResult { op, .. } => format!("the result of {}", describe(base, op)),
        tpuc_ir::ValueDef::BlockArg { .. } => "an argument".to_owned(),
    };
    let Some(tensors) = tensors.filter(|t| {
        t.iter()
            .all(|x| x.rank() == t[0].rank() && x.element == t[0].element && x.is_static())
    }) else {
        return Err(refuse(format!(
            "the type of {} changes with the symbolic sizes",
            what()
        )));
    };
    (0..tensors[0].rank())
        .map(|axis| {
            let sizes: Vec<i64> = tensors
                .iter()
                .map(|t| t.shape[axis].as_static().unwrap_or(0) as i64)
                .collect();
            let size = samples.fit(&sizes).ok_or_else(|| {
                refuse(format!(
                    "dimension {axis} of {} is not a sum of products of {} with integer coefficients (sizes {sizes:?})",
                    what(),
                    symbol_list(samples)
                ))
            })?;
            Ok((!size.is_constant()).then_some(size))
        })
        .collect::<Refused<Vec<_>>>()
        .map(Some)
}

/// How the attributes of one op, given per lowering, depend on the symbols.
fn attributes_of(
    samples: &Samples,
    kinds: &[&OpKind],
    result: Option<&Type>,
) -> Option<Attributes> {
    let fit_each = |lists: Vec<&Vec<i64>>| -> Option<Vec<SizeExpr>> {
        (0..lists[0].len())
            .map(|i| samples.fit(&lists.iter().map(|l| l[i]).collect::<Vec<_>>()))
            .collect()
    };
    match kinds[0] {
        OpKind::Constant(_) => {
            let element = result?.as_tensor()?.element;
            let datas: Vec<&DenseElements> = kinds
                .iter()
                .map(|k| match k {
                    OpKind::Constant(data) if data.is_splat() => Some(data),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            let values: Vec<ElementValue> = datas.iter().map(|d| d.value(element, 0)).collect();
            if element.is_float() {
                let floats: Vec<f64> = values
                    .iter()
                    .map(|v| match v {
                        ElementValue::Float(bits) => bits.value,
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                Some(Attributes::Constant(ScalarExpr::Float(
                    samples.fit_float(&floats)?,
                )))
            } else {
                let integers: Vec<i64> = values
                    .iter()
                    .map(|v| match *v {
                        ElementValue::Signed(i) => Some(i),
                        ElementValue::Unsigned(u) => i64::try_from(u).ok(),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                Some(Attributes::Constant(ScalarExpr::Integer(
                    samples.fit(&integers)?,
                )))
            }
        }
        OpKind::Slice { strides, .. } => {
            let mut starts = Vec::new();
            let mut limits = Vec::new();
            for kind in kinds {
                let OpKind::Slice {
                    start,
                    limit,
                    strides: s,
                } = kind
                else {
                    return None;
                };
                if s != strides {
                    return None;
                }
                starts.push(start);
                limits.push(limit);
            }
            Some(Attributes::Slice {
                start: fit_each(starts)?,
                limit: fit_each(limits)?,
                strides: strides.clone(),
            })
        }
        OpKind::Pad { .. } => {
            let (mut lows, mut highs, mut interiors) = (Vec::new(), Vec::new(), Vec::new());
            for kind in kinds {
                let OpKind::Pad {
                    low,
                    high,
                    interior,
                } = kind
                else {
                    return None;
                };
                lows.push(low);
                highs.push(high);
                interiors.push(interior);
            }
            Some(Attributes::Pad {
                low: fit_each(lows)?,
                high: fit_each(highs)?,
                interior: fit_each(interiors)?,
            })
        }
        OpKind::Gather {
            dims,
            indices_are_sorted,
            ..
        } => {
            let mut sizes = Vec::new();
            for kind in kinds {
                let OpKind::Gather {
                    dims: d,
                    slice_sizes,
                    indices_are_sorted: sorted,
                } = kind
                else {
                    return None;
                };
                if d != dims || sorted != indices_are_sorted {
                    return None;
                }
                sizes.push(slice_sizes);
            }
            Some(Attributes::Gather {
                slice_sizes: fit_each(sizes)?,
            })
        }
        _ => None,
    }
}

/// Rewrites one function in place.
struct Rewriter<'f> {
    function: &'f mut Function,
    dims: HashMap<Value, Vec<DimExpr>>,
    attributes: HashMap<OpId, Attributes>,
    /// Where the next op of the prologue goes (the symbols, their checks and every size the
    /// body needs, at the top of `main`).
    prologue: InsertPoint,
    /// Each symbol-dependent size, as a `tensor<i32>` and as a `tensor<1xi32>`.
    sizes: HashMap<SizeExpr, (Value, Value)>,
}

/// An axis of one of `main`'s arguments: (argument index, axis).
type ArgumentAxis = (usize, usize);

/// The range torch exported each symbol for.
pub(super) type Ranges = BTreeMap<String, (Option<i64>, Option<i64>)>;

impl<'f> Rewriter<'f> {
    /// Builds the prologue: reads each symbol from an argument, checks it against its range
    /// and every other argument dimension that depends on it (as `shape_assertion` custom
    /// calls, which JAX's shape refinement evaluates), and computes the sizes the body needs.
    fn new(
        function: &'f mut Function,
        ranges: &Ranges,
        dims: HashMap<Value, Vec<DimExpr>>,
        attributes: HashMap<OpId, Attributes>,
    ) -> Refused<Self> {
        let prologue = InsertPoint::Start(function.entry_block());
        let mut rewriter = Self {
            function,
            dims,
            attributes,
            prologue,
            sizes: HashMap::new(),
        };
        let (symbols, sources) = rewriter.read_symbols(ranges)?;
        for size in rewriter.needed_sizes() {
            let scalar = rewriter.compute(&size, &symbols)?;
            let single = rewriter.prologue_op(|b| b.reshape(scalar, [1]))?;
            rewriter.sizes.insert(size, (scalar, single));
        }
        rewriter.check_arguments(&sources)?;
        Ok(rewriter)
    }

    /// Each symbol's value, read from the first argument dimension that is exactly it, and
    /// those (argument, axis) sources.
    fn read_symbols(
        &mut self,
        ranges: &Ranges,
    ) -> Refused<(BTreeMap<String, Value>, Vec<ArgumentAxis>)> {
        let mut symbols = BTreeMap::new();
        let mut sources = Vec::new();
        for (name, &(min, max)) in ranges {
            let args = self.function.args().to_vec();
            let source = args.iter().enumerate().find_map(|(index, arg)| {
                let axis = self.dims.get(arg)?.iter().position(|d| {
                    d.as_ref().and_then(SizeExpr::as_symbol) == Some(name.as_str())
                })?;
                Some((index, axis))
            });
            let Some((index, axis)) = source else {
                let used = self.dims.values().flatten().flatten().any(|d| d.uses(name));
                if used {
                    return Err(refuse(format!(
                        "symbol `{name}` is not the size of any axis of an input, so the module could not read it"
                    )));
                }
                continue;
            };
            let size = self.prologue_op(|b| b.get_dimension_size(args[index], axis as i64))?;
            let input = self.argument_name(index);
            for (bound, direction, relation) in [
                (min, ComparisonDirection::Ge, ">="),
                (max, ComparisonDirection::Le, "<="),
            ] {
                // A size is a non-negative `i32`: bounds beyond that say nothing.
                let Some(bound) = bound.filter(|&b| b > 0 && b < i64::from(i32::MAX)) else {
                    continue;
                };
                let limit = self.i32_constant(bound)?;
                let holds = self.prologue_op(|b| b.compare(direction, size, limit))?;
                self.assert(
                    holds,
                    size,
                    None,
                    format!(
                        "input `{input}` has {{0}} in dimension {axis}, but the program was exported for {name} {relation} {bound}"
                    ),
                )?;
            }
            symbols.insert(name.clone(), size);
            sources.push((index, axis));
        }
        Ok((symbols, sources))
    }

    /// Checks each argument dimension that depends on the symbols but was not read as one.
    fn check_arguments(&mut self, sources: &[ArgumentAxis]) -> Refused<()> {
        let args = self.function.args().to_vec();
        for (index, &arg) in args.iter().enumerate() {
            let Some(exprs) = self.dims.get(&arg).cloned() else {
                continue;
            };
            for (axis, expr) in exprs.iter().enumerate() {
                let Some(expr) = expr else { continue };
                if sources.contains(&(index, axis)) {
                    continue;
                }
                let size = self.prologue_op(|b| b.get_dimension_size(arg, axis as i64))?;
                let want = self.sizes[expr].0;
                let holds = self.prologue_op(|b| b.compare(ComparisonDirection::Eq, size, want))?;
                let input = self.argument_name(index);
                self.assert(
                    holds,
                    size,
                    Some(want),
                    format!(
                        "input `{input}` has {{0}} in dimension {axis}, but the program needs {expr} = {{1}} there"
                    ),
                )?;
            }
        }
        Ok(())
    }

    fn argument_name(&self, index: usize) -> String {
        match self.function.arg_attrs[index].get(tpuc_ir::program::attrs::ARG_NAME) {
            Some(Attribute::String(name)) => name.clone(),
            _ => format!("argument {index}"),
        }
    }

    /// A `shape_assertion` custom call: `message` (whose `{0}` and `{1}` are `shown`) is the
    /// error when `holds` is false.
    fn assert(
        &mut self,
        holds: Value,
        shown: Value,
        also: Option<Value>,
        message: String,
    ) -> Refused<()> {
        let before = self.function.op_count();
        let inputs: Vec<Value> = [holds, shown].into_iter().chain(also).collect();
        let options = CustomCallOptions {
            has_side_effect: true,
            api_version: CustomCallApiVersion::StatusReturning,
            ..CustomCallOptions::default()
        };
        OpBuilder::at(self.function, self.prologue, Location::Unknown).custom_call(
            "shape_assertion",
            &inputs,
            Vec::new(),
            options,
        )?;
        let op = self
            .function
            .ops_since(before)
            .next()
            .expect("the custom call was built");
        self.function
            .attrs_mut(op)
            .set("error_message", Attribute::String(message));
        self.prologue = InsertPoint::After(op);
        Ok(())
    }

    /// Builds one op in the prologue, after those before it.
    fn prologue_op(
        &mut self,
        build: impl FnOnce(&mut OpBuilder<'_>) -> tpuc_ir::Result<Value>,
    ) -> Refused<Value> {
        let mut b = OpBuilder::at(self.function, self.prologue, Location::Unknown);
        let value = build(&mut b)?;
        let op = self
            .function
            .defining_op(value)
            .expect("a built op's result");
        self.prologue = InsertPoint::After(op);
        Ok(value)
    }

    fn i32_constant(&mut self, value: i64) -> Refused<Value> {
        self.prologue_op(|b| {
            b.constant(
                TensorType::scalar(ElementType::I32),
                DenseElements::splat_i64(ElementType::I32, value),
            )
        })
    }

    /// Every symbol-dependent size a type or an attribute of the body needs, in order.
    fn needed_sizes(&self) -> BTreeSet<SizeExpr> {
        let mut needed: BTreeSet<SizeExpr> =
            self.dims.values().flatten().flatten().cloned().collect();
        for attributes in self.attributes.values() {
            let lists: Vec<&Vec<SizeExpr>> = match attributes {
                Attributes::Slice { start, limit, .. } => vec![start, limit],
                Attributes::Pad {
                    low,
                    high,
                    interior,
                } => vec![low, high, interior],
                Attributes::Gather { slice_sizes } => vec![slice_sizes],
                Attributes::Constant(expr) => {
                    needed.insert(expr.size().clone());
                    Vec::new()
                }
            };
            needed.extend(lists.into_iter().flatten().cloned());
        }
        needed.retain(|a| !a.is_constant());
        needed
    }

    /// `size` as a `tensor<i32>`, in the prologue.
    fn compute(&mut self, size: &SizeExpr, symbols: &BTreeMap<String, Value>) -> Refused<Value> {
        let mut total: Option<Value> = None;
        for (product, &coefficient) in &size.terms {
            let mut term: Option<Value> = None;
            for name in product {
                let symbol = *symbols
                    .get(name)
                    .ok_or_else(|| refuse(format!("symbol `{name}` could not be read")))?;
                term = Some(match term {
                    Some(t) => self.prologue_op(|b| b.binary(BinaryOp::Multiply, t, symbol))?,
                    None => symbol,
                });
            }
            let mut term = term.expect("a product of at least one symbol");
            if coefficient != 1 {
                let c = self.i32_constant(coefficient)?;
                term = self.prologue_op(|b| b.binary(BinaryOp::Multiply, term, c))?;
            }
            total = Some(match total {
                Some(sum) => self.prologue_op(|b| b.binary(BinaryOp::Add, sum, term))?,
                None => term,
            });
        }
        let total = total.expect("only symbol-dependent sizes are computed");
        if size.constant == 0 {
            return Ok(total);
        }
        let c = self.i32_constant(size.constant)?;
        self.prologue_op(|b| b.binary(BinaryOp::Add, total, c))
    }

    fn run(mut self, walk: &[OpId]) -> Refused<()> {
        let args = self.function.args().to_vec();
        for arg in args {
            self.retype(arg);
        }
        for &op in walk {
            self.rewrite(op).map_err(|e| Refusal {
                message: format!(
                    "making {} dynamic: {}",
                    describe(self.function, op),
                    e.message
                ),
                help: e.help,
            })?;
        }
        let ret = self.function.terminator(self.function.entry_block());
        let results: Vec<Type> = ret
            .map(|op| op.operands.clone())
            .unwrap_or_default()
            .iter()
            .map(|&v| self.function.value_type(v).clone())
            .collect();
        self.function.result_types = results;
        Ok(())
    }

    /// The generalised type of `value`.
    fn dynamic_type(&self, value: Value) -> Type {
        let ty = self.function.value_type(value).clone();
        match (self.dims.get(&value), ty) {
            (Some(exprs), Type::Tensor(tensor)) => {
                let shape = tensor
                    .shape
                    .iter()
                    .zip(exprs)
                    .map(|(&d, e)| if e.is_some() { Dim::Dynamic } else { d })
                    .collect();
                Type::Tensor(TensorType::new(shape, tensor.element))
            }
            (_, ty) => ty,
        }
    }

    fn retype(&mut self, value: Value) {
        if self.dims.contains_key(&value) {
            let ty = self.dynamic_type(value);
            self.function.set_value_type(value, ty);
        }
    }

    fn rewrite(&mut self, op: OpId) -> Refused<()> {
        let operation = self.function.op(op).clone();
        let dynamic_result = operation
            .results
            .first()
            .is_some_and(|r| self.dims.contains_key(r));
        let attributes = self.attributes.remove(&op);
        let replaced = match (&operation.kind, attributes) {
            (OpKind::Constant(data), attributes) if dynamic_result || attributes.is_some() => {
                Some(self.constant(op, data, attributes)?)
            }
            (OpKind::BroadcastInDim { dims }, None) if dynamic_result => {
                let dims = dims.clone();
                let result = operation.results[0];
                let shape = self.shape_of(op, result)?;
                let ty = self.result_tensor(result);
                Some(self.builder(op).dynamic_broadcast_in_dim(
                    operation.operands[0],
                    shape,
                    &dims,
                    ty,
                )?)
            }
            (OpKind::Reshape, None) if dynamic_result => {
                let result = operation.results[0];
                let shape = self.shape_of(op, result)?;
                let ty = self.result_tensor(result);
                Some(
                    self.builder(op)
                        .dynamic_reshape(operation.operands[0], shape, ty)?,
                )
            }
            (OpKind::Iota { dimension }, None) if dynamic_result => {
                let result = operation.results[0];
                let shape = self.shape_of(op, result)?;
                let ty = self.result_tensor(result);
                Some(self.builder(op).dynamic_iota(shape, *dimension, ty)?)
            }
            (
                OpKind::Slice { .. },
                Some(Attributes::Slice {
                    start,
                    limit,
                    strides,
                }),
            ) => {
                let start = self.vector(op, &start)?;
                let limit = self.vector(op, &limit)?;
                let strides: Vec<SizeExpr> =
                    strides.iter().map(|&s| SizeExpr::constant(s)).collect();
                let strides = self.vector(op, &strides)?;
                let ty = self.result_tensor(operation.results[0]);
                Some(self.builder(op).real_dynamic_slice(
                    operation.operands[0],
                    start,
                    limit,
                    strides,
                    ty,
                )?)
            }
            (
                OpKind::Pad { .. },
                Some(Attributes::Pad {
                    low,
                    high,
                    interior,
                }),
            ) => {
                let low = self.vector(op, &low)?;
                let high = self.vector(op, &high)?;
                let interior = self.vector(op, &interior)?;
                let ty = self.result_tensor(operation.results[0]);
                Some(self.builder(op).dynamic_pad(
                    operation.operands[0],
                    operation.operands[1],
                    low,
                    high,
                    interior,
                    ty,
                )?)
            }
            (
                OpKind::Gather {
                    dims,
                    indices_are_sorted,
                    ..
                },
                Some(Attributes::Gather { slice_sizes }),
            ) => {
                let (dims, sorted) = (dims.clone(), *indices_are_sorted);
                let sizes = self.vector(op, &slice_sizes)?;
                let ty = self.result_tensor(operation.results[0]);
                Some(self.builder(op).dynamic_gather(
                    operation.operands[0],
                    operation.operands[1],
                    sizes,
                    dims,
                    sorted,
                    ty,
                )?)
            }
            (_, None) => None,
            (kind, Some(_)) => {
                return Err(refuse(format!(
                    "`{}` has attributes that depend on the symbols",
                    kind.name()
                )));
            }
        };
        match replaced {
            Some(value) => {
                self.function
                    .replace_all_uses_with(operation.results[0], value);
                self.function.erase_op(op);
            }
            None => {
                for &result in &operation.results {
                    self.retype(result);
                }
                for &region in &operation.regions {
                    let blocks = self.function.region(region).blocks.clone();
                    for block in blocks {
                        let args = self.function.block(block).args.clone();
                        for arg in args {
                            self.retype(arg);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn builder(&mut self, op: OpId) -> OpBuilder<'_> {
        let location = self.function.op(op).location.clone();
        OpBuilder::at(self.function, InsertPoint::Before(op), location)
    }

    fn result_tensor(&self, result: Value) -> TensorType {
        match self.dynamic_type(result) {
            Type::Tensor(tensor) => tensor,
            _ => unreachable!("only tensor results have dimension expressions"),
        }
    }

    /// A splat constant of a dynamic shape or a symbol-dependent value.
    fn constant(
        &mut self,
        op: OpId,
        data: &DenseElements,
        attributes: Option<Attributes>,
    ) -> Refused<Value> {
        let result = self.function.op(op).results[0];
        let ty = self.result_tensor(result);
        let scalar = match attributes {
            Some(Attributes::Constant(expr)) => self.scalar_value(op, &expr, ty.element)?,
            _ if data.is_splat() => self
                .builder(op)
                .constant(TensorType::scalar(ty.element), data.clone())?,
            _ => {
                return Err(refuse(
                    "a constant that is not a splat cannot take a dynamic shape".to_owned(),
                ));
            }
        };
        if ty.rank() == 0 {
            return Ok(scalar);
        }
        let shape = self.shape_of(op, result)?;
        Ok(self
            .builder(op)
            .dynamic_broadcast_in_dim(scalar, shape, &[], ty)?)
    }

    fn scalar_value(
        &mut self,
        op: OpId,
        expr: &ScalarExpr,
        element: ElementType,
    ) -> Refused<Value> {
        let size = expr.size();
        let known = self.sizes.get(size).map(|&(scalar, _)| scalar);
        let mut b = self.builder(op);
        let size = match known {
            Some(scalar) => scalar,
            None => b.constant(
                TensorType::scalar(ElementType::I32),
                DenseElements::splat_i64(ElementType::I32, size.constant),
            )?,
        };
        let value = if element == ElementType::I32 {
            size
        } else {
            b.convert(size, element)?
        };
        if !matches!(expr, ScalarExpr::Float(FloatForm::Reciprocal(_))) {
            return Ok(value);
        }
        let one = b.constant(
            TensorType::scalar(element),
            DenseElements::splat_f64(element, 1.0),
        )?;
        Ok(b.binary(BinaryOp::Divide, one, value)?)
    }

    /// The entries as a `tensor<Nxi32>`: runs of static entries as constants, the others
    /// from the prologue.
    fn vector(&mut self, op: OpId, entries: &[SizeExpr]) -> Refused<Value> {
        let mut parts = Vec::new();
        let mut run: Vec<i64> = Vec::new();
        for entry in entries.iter().map(Some).chain([None]) {
            match entry {
                Some(size) if size.is_constant() => {
                    run.push(size.constant);
                    continue;
                }
                _ if !run.is_empty() || (parts.is_empty() && entry.is_none()) => {
                    let ty = TensorType::of(&[run.len() as u64], ElementType::I32);
                    let data = DenseElements::from_i64s(&ty, &run)?;
                    parts.push(self.builder(op).constant(ty, data)?);
                    run.clear();
                }
                _ => {}
            }
            if let Some(size) = entry {
                parts.push(self.sizes[size].1);
            }
        }
        match parts.as_slice() {
            [single] => Ok(*single),
            _ => Ok(self.builder(op).concatenate(&parts, 0)?),
        }
    }

    /// The shape of `value` as a `tensor<Nxi32>`.
    fn shape_of(&mut self, op: OpId, value: Value) -> Refused<Value> {
        let Type::Tensor(tensor) = self.function.value_type(value).clone() else {
            unreachable!("only tensors have shapes");
        };
        let exprs = self.dims.get(&value);
        let entries: Vec<SizeExpr> = tensor
            .shape
            .iter()
            .enumerate()
            .map(|(axis, d)| {
                exprs
                    .and_then(|e| e[axis].clone())
                    .unwrap_or_else(|| SizeExpr::constant(d.as_static().unwrap_or(0) as i64))
            })
            .collect();
        self.vector(op, &entries)
    }
}

impl ScalarExpr {
    fn size(&self) -> &SizeExpr {
        match self {
            ScalarExpr::Integer(size)
            | ScalarExpr::Float(FloatForm::Size(size) | FloatForm::Reciprocal(size)) => size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpuc_ir::{FunctionBuilder, OpKind, Visibility};

    fn samples(values: &[i64]) -> Samples {
        Samples::new(&[("s".to_owned(), values.to_vec())].into())
    }

    fn ranges() -> Ranges {
        [("s".to_owned(), (Some(2), Some(64)))].into()
    }

    /// `main(x: f32[s]) -> f32[2, s]`: `x` broadcast, then `x[:limit(s)]` broadcast too.
    fn lowered_at(s: u64, limit: impl Fn(u64) -> u64) -> Function {
        let mut b = FunctionBuilder::new("main", Visibility::Public);
        let x = b.arg(TensorType::of(&[s], ElementType::F32));
        let wide = b.broadcast_in_dim(x, &[1], [2, s]).unwrap();
        let head = b.slice(x, &[0], &[limit(s) as i64], &[1]).unwrap();
        let head = b.broadcast_in_dim(head, &[1], [2, limit(s)]).unwrap();
        b.ret(&[wide, head]).unwrap();
        b.finish().unwrap()
    }

    fn generalized(limit: impl Fn(u64) -> u64) -> Refused<Function> {
        let functions: Vec<Function> = [13, 17, 19].map(|s| lowered_at(s, &limit)).into();
        let refs: Vec<&Function> = functions.iter().collect();
        generalize(&samples(&[13, 17, 19]), &ranges(), &refs)
    }

    #[test]
    fn symbolic_sizes_become_dynamic_ops_fed_by_the_symbol() {
        let function = generalized(|s| s - 1).unwrap();
        tpuc_ir::verify_function(&function).unwrap();
        let kinds: Vec<&str> = function
            .walk()
            .into_iter()
            .map(|op| function.op(op).kind.name())
            .collect();
        for kind in [
            "stablehlo.get_dimension_size",
            "stablehlo.dynamic_broadcast_in_dim",
            "stablehlo.real_dynamic_slice",
            "stablehlo.custom_call",
        ] {
            assert!(kinds.contains(&kind), "no {kind} in {kinds:?}");
        }
        assert!(!kinds.contains(&"stablehlo.broadcast_in_dim"), "{kinds:?}");
        let results: Vec<String> = function
            .result_types
            .iter()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(results, ["tensor<2x?xf32>", "tensor<2x?xf32>"]);
        let assertions = function
            .walk()
            .into_iter()
            .filter(|&op| matches!(function.op(op).kind, OpKind::CustomCall { .. }))
            .count();
        assert_eq!(assertions, 2, "one per bound of `s`");
    }

    #[test]
    fn a_size_that_is_no_polynomial_of_the_symbol_is_refused_naming_the_op() {
        let refusal = generalized(|s| s / 2).unwrap_err();
        assert!(
            refusal.message.contains("`stablehlo.slice`")
                && refusal.message.contains(
                    "not a sum of products of s with integer coefficients (sizes [6, 8, 9])"
                ),
            "{}",
            refusal.message
        );
        assert!(refusal.help.unwrap().contains("--dim"));
    }

    #[test]
    fn lowerings_with_different_ops_are_refused() {
        let mut functions: Vec<Function> = [13, 17].map(|s| lowered_at(s, |s| s - 1)).into();
        let mut b = FunctionBuilder::new("main", Visibility::Public);
        let x = b.arg(TensorType::of(&[19], ElementType::F32));
        b.ret(&[x]).unwrap();
        functions.push(b.finish().unwrap());
        let refs: Vec<&Function> = functions.iter().collect();
        let refusal = generalize(&samples(&[13, 17, 19]), &ranges(), &refs).unwrap_err();
        assert!(
            refusal.message.contains("structure depends"),
            "{}",
            refusal.message
        );
    }
}
