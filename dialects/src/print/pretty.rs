//! The custom assembly formats of StableHLO, func and sdy ops, one per [`Syntax`] the op table
//! declares. Ops declared `Generic` (gather, scatter, sort, case, collectives, ...) print in
//! the generic form, as MLIR prints them.

use std::fmt::Write;

use super::attrs::{conv_dims_compact, inherent};
use super::syntax::{self, dense, i64_list, symbol};
use super::{FnCx, Printer};
use crate::attr::Precision;
use crate::function::{OpId, Operation};
use crate::op::{BinaryOp, OpKind, Syntax, attr_name};
use crate::types::Type;

/// Operand and result types of an op.
struct Sig {
    operands: Vec<Type>,
    results: Vec<Type>,
}

impl Sig {
    fn functional(&self) -> String {
        syntax::function_type(&self.operands, &self.results)
    }

    /// `T -> T` or `T -> (T, ...)`: CHLO's type of an op with one operand.
    fn mapping(&self) -> String {
        let results = match self.results.as_slice() {
            [result] => result.to_string(),
            results => format!("({})", syntax::types(results)),
        };
        format!("{} -> {results}", syntax::types(&self.operands))
    }

    /// One type when every operand and the result share it, else the functional type.
    fn same_or_functional(&self) -> String {
        match self.results.as_slice() {
            [result] if self.operands.iter().all(|t| t == result) => result.to_string(),
            _ => self.functional(),
        }
    }
}

fn precision_suffix(precision: &[Precision]) -> String {
    if precision.is_empty() {
        return String::new();
    }
    let items: Vec<&str> = precision.iter().map(|p| p.keyword()).collect();
    format!(", precision = [{}]", items.join(", "))
}

impl Printer<'_> {
    /// Prints `op` in its custom form after the `%x = ` prefix; false when it has none.
    pub(super) fn pretty_op(&mut self, cx: &FnCx<'_>, id: OpId, indent: usize) -> bool {
        let f = cx.f;
        let op = f.op(id);
        let sig = Sig {
            operands: op
                .operands
                .iter()
                .map(|&v| f.value_type(v).clone())
                .collect(),
            results: op
                .results
                .iter()
                .map(|&v| f.value_type(v).clone())
                .collect(),
        };
        let operands: Vec<String> = op.operands.iter().map(|&v| cx.names.use_of(v)).collect();
        let args = operands.join(", ");
        let attrs = discardable(op);
        let name = op.kind.name();
        let text = match op.kind.opcode().syntax() {
            Syntax::Generic => return false,
            Syntax::Elementwise => match &op.kind {
                OpKind::Binary(BinaryOp::Complex) => {
                    let [result] = sig.results.as_slice() else {
                        return false;
                    };
                    let parts = result.as_tensor().and_then(|r| {
                        Some(Type::Tensor(r.with_element(r.element.complex_part()?)))
                    });
                    let ty = if sig.operands.iter().all(|t| Some(t) == parts.as_ref()) {
                        result.to_string()
                    } else {
                        sig.functional()
                    };
                    format!("{name} {args}{attrs} : {ty}")
                }
                _ => format!("{name} {args}{attrs} : {}", sig.same_or_functional()),
            },
            Syntax::ChloUnary => format!("{name} {args}{attrs} : {}", sig.mapping()),
            Syntax::ChloBinary => format!(
                "{name} {args}{attrs} : {} -> {}",
                syntax::types(&sig.operands),
                syntax::types(&sig.results)
            ),
            Syntax::ChloBroadcast => format!(
                "{name} {args}{} : {}",
                merged_attrs(op, inherent(&op.kind, &sig.results)),
                sig.functional()
            ),
            Syntax::Functional => format!("{name} {args}{attrs} : {}", sig.functional()),
            Syntax::TopK => {
                let OpKind::ChloTopK { k } = op.kind else {
                    return false;
                };
                format!("{name}({args}, k = {k}){attrs} : {}", sig.mapping())
            }
            Syntax::Reverse(_) => {
                let OpKind::Reverse { dims } = &op.kind else {
                    return false;
                };
                format!(
                    "{name} {args}, dims = {}{attrs} : {}",
                    i64_list(dims),
                    sig.same_or_functional()
                )
            }
            Syntax::Compare => {
                let OpKind::Compare {
                    direction,
                    compare_type,
                } = &op.kind
                else {
                    return false;
                };
                let compare_type = compare_type
                    .map(|t| format!(",  {}", t.keyword()))
                    .unwrap_or_default();
                format!(
                    "{name}  {}, {args}{compare_type}{attrs} : {}",
                    direction.keyword(),
                    sig.functional()
                )
            }
            Syntax::Select => {
                let ty = match (sig.operands.as_slice(), sig.results.as_slice()) {
                    ([pred, on_true, on_false], [result])
                        if on_true == result && on_false == result =>
                    {
                        format!("{pred}, {result}")
                    }
                    _ => sig.functional(),
                };
                format!("{name} {args}{attrs} : {ty}")
            }
            Syntax::Constant => {
                let OpKind::Constant(data) = &op.kind else {
                    return false;
                };
                let Some(ty) = sig.results.first().and_then(Type::as_tensor) else {
                    return false;
                };
                format!("{name}{attrs} {} : {ty}", dense(ty, data))
            }
            Syntax::Iota(_) => {
                let (OpKind::Iota { dimension }, [result]) = (&op.kind, sig.results.as_slice())
                else {
                    return false;
                };
                format!("{name} dim = {dimension}{attrs} : {result}")
            }
            Syntax::Dim(_) => {
                let (OpKind::DynamicIota { dimension }
                | OpKind::GetDimensionSize { dimension }
                | OpKind::Concatenate { dimension }) = &op.kind
                else {
                    return false;
                };
                format!(
                    "{name} {args}, dim = {dimension}{attrs} : {}",
                    sig.functional()
                )
            }
            Syntax::Dims(keyword_attr) => {
                let (OpKind::BroadcastInDim { dims }
                | OpKind::Transpose { permutation: dims }
                | OpKind::DynamicBroadcastInDim { dims, .. }) = &op.kind
                else {
                    return false;
                };
                let entries = inherent(&op.kind, &sig.results)
                    .into_iter()
                    .filter(|(n, _)| n != keyword_attr)
                    .collect();
                let attrs = merged_attrs(op, entries);
                format!(
                    "{name} {args}, dims = {}{attrs} : {}",
                    i64_list(dims),
                    sig.functional()
                )
            }
            Syntax::Slice => {
                let OpKind::Slice {
                    start,
                    limit,
                    strides,
                } = &op.kind
                else {
                    return false;
                };
                let ranges: Vec<String> = start
                    .iter()
                    .zip(limit)
                    .zip(strides)
                    .map(|((s, l), &stride)| {
                        if stride == 1 {
                            format!("{s}:{l}")
                        } else {
                            format!("{s}:{l}:{stride}")
                        }
                    })
                    .collect();
                format!(
                    "{name} {args} [{}]{attrs} : {}",
                    ranges.join(", "),
                    sig.functional()
                )
            }
            Syntax::Sizes(_) => {
                let OpKind::DynamicSlice { sizes } = &op.kind else {
                    return false;
                };
                format!(
                    "{name} {args}, sizes = {}{attrs} : {}",
                    i64_list(sizes),
                    sig.functional()
                )
            }
            Syntax::Pad => {
                let OpKind::Pad {
                    low,
                    high,
                    interior,
                } = &op.kind
                else {
                    return false;
                };
                format!(
                    "{name} {args}, low = {}, high = {}, interior = {}{attrs} : {}",
                    i64_list(low),
                    i64_list(high),
                    i64_list(interior),
                    sig.functional()
                )
            }
            Syntax::DotGeneral => {
                let OpKind::DotGeneral { dims, precision } = &op.kind else {
                    return false;
                };
                let mut text = format!("{name} {args}, ");
                if !dims.lhs_batching.is_empty() || !dims.rhs_batching.is_empty() {
                    let _ = write!(
                        text,
                        "batching_dims = {} x {}, ",
                        i64_list(&dims.lhs_batching),
                        i64_list(&dims.rhs_batching)
                    );
                }
                let _ = write!(
                    text,
                    "contracting_dims = {} x {}{}{attrs} : {}",
                    i64_list(&dims.lhs_contracting),
                    i64_list(&dims.rhs_contracting),
                    precision_suffix(precision),
                    sig.functional()
                );
                text
            }
            Syntax::Convolution => {
                let OpKind::Convolution(conv) = &op.kind else {
                    return false;
                };
                let Some(dim_numbers) = conv_dims_compact(&conv.dims) else {
                    return false;
                };
                let mut window = Vec::new();
                if !conv.window_strides.is_empty() {
                    window.push(format!("stride = {}", i64_list(&conv.window_strides)));
                }
                if !conv.padding.is_empty() {
                    let pads: Vec<String> = conv
                        .padding
                        .iter()
                        .map(|(lo, hi)| format!("[{lo}, {hi}]"))
                        .collect();
                    window.push(format!("pad = [{}]", pads.join(", ")));
                }
                if !conv.lhs_dilation.is_empty() {
                    window.push(format!("lhs_dilate = {}", i64_list(&conv.lhs_dilation)));
                }
                if !conv.rhs_dilation.is_empty() {
                    window.push(format!("rhs_dilate = {}", i64_list(&conv.rhs_dilation)));
                }
                if !conv.window_reversal.is_empty() {
                    let flags: Vec<i64> =
                        conv.window_reversal.iter().map(|&r| i64::from(r)).collect();
                    window.push(format!("reverse = {}", i64_list(&flags)));
                }
                let keep = [
                    attr_name::BATCH_GROUP_COUNT,
                    attr_name::FEATURE_GROUP_COUNT,
                    attr_name::PRECISION_CONFIG,
                ];
                let entries = inherent(&op.kind, &sig.results)
                    .into_iter()
                    .filter(|(n, _)| keep.contains(&n.as_str()))
                    .collect();
                format!(
                    "{name}({args}) dim_numbers = {dim_numbers}, window = {{{}}}{} : {}",
                    window.join(", "),
                    merged_attrs(op, entries),
                    sig.functional()
                )
            }
            Syntax::Reduce => {
                let OpKind::Reduce { dimensions } = &op.kind else {
                    return false;
                };
                return self.pretty_reduce(cx, op, dimensions, &sig, indent);
            }
            Syntax::While => return self.pretty_while(cx, op, &sig, indent),
            Syntax::Composite => {
                let OpKind::Composite {
                    name: composite, ..
                } = &op.kind
                else {
                    return false;
                };
                let entries = inherent(&op.kind, &sig.results)
                    .into_iter()
                    .filter(|(n, _)| n != attr_name::NAME)
                    .collect();
                let sep = if args.is_empty() { "" } else { " " };
                format!(
                    "{name} {}{sep}{args}{} : {}",
                    syntax::string(composite),
                    merged_attrs(op, entries),
                    sig.functional()
                )
            }
            Syntax::CustomCall => {
                let OpKind::CustomCall { target, .. } = &op.kind else {
                    return false;
                };
                let entries = inherent(&op.kind, &sig.results)
                    .into_iter()
                    .filter(|(n, _)| n != attr_name::CALL_TARGET_NAME)
                    .collect();
                format!(
                    "{name} {}({args}){} : {}",
                    symbol(target),
                    merged_attrs(op, entries),
                    sig.functional()
                )
            }
            Syntax::Barrier => {
                if !attrs.is_empty() {
                    return false;
                }
                if args.is_empty() {
                    format!("{name}()")
                } else {
                    format!("{name} {args} : {}", syntax::types(&sig.operands))
                }
            }
            Syntax::Fft => {
                let OpKind::Fft {
                    fft_type,
                    fft_length,
                } = &op.kind
                else {
                    return false;
                };
                format!(
                    "{name} {args}, type = {}, length = {}{attrs} : {}",
                    fft_type.keyword(),
                    i64_list(fft_length),
                    sig.functional()
                )
            }
            Syntax::Tuple => {
                let [result] = sig.results.as_slice() else {
                    return false;
                };
                let args = if args.is_empty() {
                    String::new()
                } else {
                    format!(" {args}")
                };
                format!("{name}{args}{attrs} : {result}")
            }
            Syntax::GetTupleElement => {
                let OpKind::GetTupleElement { index } = &op.kind else {
                    return false;
                };
                format!("{name} {args}[{index}]{attrs} : {}", sig.functional())
            }
            Syntax::ReducePrecision => {
                let OpKind::ReducePrecision {
                    exponent_bits,
                    mantissa_bits,
                } = &op.kind
                else {
                    return false;
                };
                format!(
                    "{name} {args}, format = e{exponent_bits}m{mantissa_bits}{attrs} : {}",
                    sig.same_or_functional()
                )
            }
            Syntax::RngBitGenerator => {
                let OpKind::RngBitGenerator { algorithm } = &op.kind else {
                    return false;
                };
                format!(
                    "{name} {args}, algorithm = {}{attrs} : {}",
                    algorithm.keyword(),
                    sig.functional()
                )
            }
            Syntax::ResultType => {
                let [result] = sig.results.as_slice() else {
                    return false;
                };
                format!("{name}{attrs} : {result}")
            }
            Syntax::Return => {
                let keyword = if matches!(op.kind, OpKind::Return) {
                    "return"
                } else {
                    name
                };
                if args.is_empty() {
                    format!("{keyword}{attrs}")
                } else {
                    format!("{keyword} {args}{attrs} : {}", syntax::types(&sig.operands))
                }
            }
            Syntax::Call => {
                let OpKind::Call { callee } = &op.kind else {
                    return false;
                };
                // `func` is the default dialect only directly inside a function body.
                let keyword = if self.region_depth == 0 { "call" } else { name };
                format!(
                    "{keyword} {}({args}){attrs} : {}",
                    symbol(callee),
                    sig.functional()
                )
            }
            Syntax::ShardingConstraint => {
                let (OpKind::ShardingConstraint(sharding), [result]) =
                    (&op.kind, sig.results.as_slice())
                else {
                    return false;
                };
                format!(
                    "{name} {args} {}{attrs} : {result}",
                    syntax::sharding_inline(sharding)
                )
            }
        };
        self.out.push_str(&text);
        true
    }

    fn pretty_reduce(
        &mut self,
        cx: &FnCx<'_>,
        op: &Operation,
        dimensions: &[i64],
        sig: &Sig,
        indent: usize,
    ) -> bool {
        let f = cx.f;
        let n = op.operands.len() / 2;
        let Some(&region) = op.regions.first() else {
            return false;
        };
        let Some(&block) = f.region(region).blocks.first() else {
            return false;
        };
        let args = &f.block(block).args;
        if n == 0 || !op.operands.len().is_multiple_of(2) || args.len() != 2 * n {
            return false;
        }
        let pairs: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "({} init: {})",
                    cx.names.use_of(op.operands[i]),
                    cx.names.use_of(op.operands[i + n])
                )
            })
            .collect();
        let compact = self.compact_reducer(cx, op, region);
        let _ = write!(self.out, "{}{}", op.kind.name(), pairs.join(", "));
        if let Some(inner) = compact {
            let _ = write!(self.out, " applies {inner}");
        }
        let _ = write!(
            self.out,
            " across dimensions = {}{} : {}",
            i64_list(dimensions),
            discardable(op),
            sig.functional()
        );
        if compact.is_none() {
            let arg = |i: usize| format!("{}: {}", cx.names.use_of(args[i]), f.value_type(args[i]));
            self.out.push('\n');
            super::push_indent(&mut self.out, indent);
            self.out.push_str(" reducer");
            for i in 0..n {
                let _ = write!(self.out, "({}, {}) ", arg(i), arg(i + n));
            }
            self.out.push(' ');
            self.region(cx, region, indent, false);
        }
        true
    }

    /// The inner op's name when the body is one commutative binary op applied to the block
    /// arguments in order and returned (StableHLO's compact reduce form).
    fn compact_reducer(
        &self,
        cx: &FnCx<'_>,
        op: &Operation,
        region: crate::function::RegionId,
    ) -> Option<&'static str> {
        let f = cx.f;
        let blocks = &f.region(region).blocks;
        let [block] = blocks.as_slice() else {
            return None;
        };
        let block = f.block(*block);
        let [inner, ret] = block.ops.as_slice() else {
            return None;
        };
        let (inner, ret) = (f.op(*inner), f.op(*ret));
        let OpKind::Binary(binary) = inner.kind else {
            return None;
        };
        let input = op
            .operands
            .first()
            .and_then(|&v| f.value_type(v).as_tensor())?;
        let expected = Type::Tensor(crate::types::TensorType::scalar(input.element));
        let types_match = inner
            .operands
            .iter()
            .chain(&inner.results)
            .all(|&v| *f.value_type(v) == expected);
        let keeps_location = self.options.locations == super::LocationStyle::Strip
            || (inner.location == op.location && ret.location == op.location);
        (binary.is_commutative()
            && types_match
            && inner.attrs.is_empty()
            && inner.operands == block.args
            && matches!(ret.kind, OpKind::RegionReturn)
            && ret.operands == inner.results
            && keeps_location)
            .then(|| binary.name())
    }

    fn pretty_while(&mut self, cx: &FnCx<'_>, op: &Operation, sig: &Sig, indent: usize) -> bool {
        let f = cx.f;
        let [cond, body] = op.regions.as_slice() else {
            return false;
        };
        let Some(&body_block) = f.region(*body).blocks.first() else {
            return false;
        };
        let iter_args = &f.block(body_block).args;
        if iter_args.len() != op.operands.len() {
            return false;
        }
        let bindings: Vec<String> = iter_args
            .iter()
            .zip(&op.operands)
            .map(|(&a, &v)| format!("{} = {}", cx.names.use_of(a), cx.names.use_of(v)))
            .collect();
        let _ = write!(self.out, "{}({})", op.kind.name(), bindings.join(", "));
        if !sig.operands.is_empty() {
            let _ = write!(self.out, " : {}", syntax::types(&sig.operands));
        }
        if !op.attrs.is_empty() {
            let _ = write!(self.out, " attributes{}", discardable(op));
        }
        self.out.push('\n');
        super::push_indent(&mut self.out, indent);
        self.out.push_str("cond ");
        self.region(cx, *cond, indent, false);
        self.out.push_str(" do ");
        self.region(cx, *body, indent, false);
        true
    }
}

/// ` {a = 1}` for the op's discardable attributes, empty when there are none.
fn discardable(op: &Operation) -> String {
    merged_attrs(op, Vec::new())
}

/// ` {..}` of `entries` plus the op's discardable attributes, sorted by name as MLIR does.
fn merged_attrs(op: &Operation, mut entries: Vec<(String, String)>) -> String {
    entries.extend(
        op.attrs
            .iter()
            .map(|(n, v)| (syntax::attr_name(n), syntax::attribute(v))),
    );
    if entries.is_empty() {
        return String::new();
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    format!(" {}", syntax::dict(entries))
}
