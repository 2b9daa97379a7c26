//! `einsum`: repeated labels of one operand become diagonals, labels no later operand or the
//! output needs are summed out, and the operands are contracted left to right with
//! `dot_general` (shared labels still needed are batch dimensions).

use tpuc_ir::{BinaryOp, DotDims, FunctionBuilder, Value};

use super::one;
use super::views::diagonal_of;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support::{self, reduce};

pub(super) const OPS: &[OpDef] = &[aten(
    "einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
    einsum,
)];

/// A tensor with one label per dimension.
struct Labeled {
    value: Value,
    labels: Vec<char>,
}

/// Labels standing for the dimensions of `...`, right-aligned: `ELLIPSIS + k` for the `k`-th of
/// the widest ellipsis. Private-use code points cannot clash with equation letters.
const ELLIPSIS: u32 = 0xE000;

struct Equation {
    inputs: Vec<Vec<char>>,
    output: Vec<char>,
}

fn parse(equation: &str, ranks: &[usize]) -> OpResult<Equation> {
    let equation: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match equation.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (equation.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ranks.len() {
        bail!(
            "einsum equation `{equation}` has {} operands, the call passes {}",
            terms.len(),
            ranks.len()
        );
    }
    let letters = |term: &str| term.replace("...", "").chars().count();
    let width = terms
        .iter()
        .zip(ranks)
        .filter(|(t, _)| t.contains("..."))
        .map(|(t, &r)| r.saturating_sub(letters(t)))
        .max()
        .unwrap_or(0);
    let ellipsis = |n: usize| -> Vec<char> {
        (width - n..width)
            .filter_map(|k| char::from_u32(ELLIPSIS + k as u32))
            .collect()
    };
    let expand = |term: &str, rank: Option<usize>| -> OpResult<Vec<char>> {
        let mut labels = Vec::new();
        let mut rest = term;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("...") {
                let n = rank.map_or(width, |r| r.saturating_sub(letters(term)));
                labels.extend(ellipsis(n));
                rest = after;
                continue;
            }
            let c = rest.chars().next().unwrap_or_default();
            if !c.is_ascii_alphabetic() {
                bail!("einsum equation `{equation}`: `{c}` is not a subscript letter");
            }
            labels.push(c);
            rest = &rest[c.len_utf8()..];
        }
        if let Some(rank) = rank
            && labels.len() != rank
        {
            bail!(
                "einsum equation `{equation}`: `{term}` has {} subscripts for an operand of rank {rank}",
                labels.len()
            );
        }
        Ok(labels)
    };
    let inputs = terms
        .iter()
        .zip(ranks)
        .map(|(t, &r)| expand(t, Some(r)))
        .collect::<OpResult<Vec<_>>>()?;
    let output = match rhs {
        Some(r) => expand(r, None)?,
        None => {
            // Implicit output: the ellipsis, then letters used once, alphabetically.
            let all: Vec<char> = inputs.iter().flatten().copied().collect();
            let mut once: Vec<char> = all
                .iter()
                .copied()
                .filter(|c| c.is_ascii_alphabetic() && all.iter().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            let mut out = ellipsis(width);
            out.extend(once);
            out
        }
    };
    Ok(Equation { inputs, output })
}

/// Sums out the labels of `t` not in `keep`.
fn sum_out(b: &mut FunctionBuilder, t: Labeled, keep: &[char]) -> OpResult<Labeled> {
    let dims: Vec<usize> = (0..t.labels.len())
        .filter(|&i| !keep.contains(&t.labels[i]))
        .collect();
    if dims.is_empty() {
        return Ok(t);
    }
    let value = reduce(b, BinaryOp::Add, t.value, &dims, false)?;
    let labels = (0..t.labels.len())
        .filter(|i| !dims.contains(i))
        .map(|i| t.labels[i])
        .collect();
    Ok(Labeled { value, labels })
}

/// A label repeated within one operand: its diagonal, labelled once (last).
fn take_diagonals(b: &mut FunctionBuilder, mut t: Labeled) -> OpResult<Labeled> {
    while let Some((i, j)) = (0..t.labels.len()).find_map(|i| {
        (i + 1..t.labels.len())
            .find(|&j| t.labels[j] == t.labels[i])
            .map(|j| (i, j))
    }) {
        let label = t.labels[i];
        t.value = diagonal_of(b, t.value, 0, i as i64, j as i64)?;
        t.labels = t
            .labels
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != i && k != j)
            .map(|(_, &c)| c)
            .collect();
        t.labels.push(label);
    }
    Ok(t)
}

fn positions(labels: &[char], of: &[char]) -> Vec<i64> {
    of.iter()
        .filter_map(|c| labels.iter().position(|l| l == c))
        .map(|p| p as i64)
        .collect()
}

fn contract(
    b: &mut FunctionBuilder,
    lhs: Labeled,
    rhs: Labeled,
    needed: &[char],
) -> OpResult<Labeled> {
    let shared: Vec<char> = lhs
        .labels
        .iter()
        .copied()
        .filter(|c| rhs.labels.contains(c))
        .collect();
    let batch: Vec<char> = shared
        .iter()
        .copied()
        .filter(|c| needed.contains(c))
        .collect();
    let summed: Vec<char> = shared
        .iter()
        .copied()
        .filter(|c| !needed.contains(c))
        .collect();
    let dims = DotDims {
        lhs_batching: positions(&lhs.labels, &batch),
        rhs_batching: positions(&rhs.labels, &batch),
        lhs_contracting: positions(&lhs.labels, &summed),
        rhs_contracting: positions(&rhs.labels, &summed),
    };
    let value = support::dot(b, lhs.value, rhs.value, dims)?;
    let mut labels = batch.clone();
    labels.extend(lhs.labels.iter().filter(|c| !shared.contains(c)));
    labels.extend(rhs.labels.iter().filter(|c| !shared.contains(c)));
    Ok(Labeled { value, labels })
}

fn einsum(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let tensors = args.tensors("tensors")?;
    let dtype = cx.out_dtype(0)?;
    let b = &mut *cx.b;
    let ranks = tensors
        .iter()
        .map(|&t| support::rank(b, t))
        .collect::<OpResult<Vec<_>>>()?;
    let equation = parse(args.str("equation")?, &ranks)?;
    // Every label's size: the largest any operand gives it (size-1 dimensions broadcast).
    let mut sizes: Vec<(char, i64)> = Vec::new();
    for (&t, labels) in tensors.iter().zip(&equation.inputs) {
        for (&c, &s) in labels.iter().zip(&support::shape(b, t)?) {
            match sizes.iter_mut().find(|(l, _)| *l == c) {
                Some((_, size)) if *size == 1 => *size = s,
                Some((_, size)) if s != 1 && *size != s => {
                    bail!("einsum subscript `{c}` has sizes {size} and {s}")
                }
                Some(_) => {}
                None => sizes.push((c, s)),
            }
        }
    }
    let size_of = |c: char| sizes.iter().find(|(l, _)| *l == c).map_or(1, |&(_, s)| s);
    if let Some(&c) = equation
        .output
        .iter()
        .find(|c| !sizes.iter().any(|(l, _)| l == *c))
    {
        bail!("einsum output subscript `{c}` is in no operand");
    }
    let mut operands = Vec::new();
    for (&t, labels) in tensors.iter().zip(&equation.inputs) {
        let t = support::convert(b, t, dtype)?;
        let full: Vec<i64> = labels.iter().map(|&c| size_of(c)).collect();
        let t = support::broadcast_to(b, t, &full)?;
        operands.push(take_diagonals(
            b,
            Labeled {
                value: t,
                labels: labels.clone(),
            },
        )?);
    }
    let mut operands = operands.into_iter();
    let Some(first) = operands.next() else {
        bail!("einsum of no operands");
    };
    let rest: Vec<Labeled> = operands.collect();
    let needed_after = |k: usize| -> Vec<char> {
        let mut needed = equation.output.clone();
        needed.extend(rest[k..].iter().flat_map(|t| t.labels.iter().copied()));
        needed
    };
    let mut acc = first;
    for (k, next) in rest.iter().enumerate() {
        let later = needed_after(k + 1);
        let mut keep_acc = later.clone();
        keep_acc.extend(&next.labels);
        acc = sum_out(b, acc, &keep_acc)?;
        let mut keep_next = later.clone();
        keep_next.extend(&acc.labels);
        let next = sum_out(
            b,
            Labeled {
                value: next.value,
                labels: next.labels.clone(),
            },
            &keep_next,
        )?;
        acc = contract(b, acc, next, &later)?;
    }
    let acc = sum_out(b, acc, &equation.output)?;
    let perm = positions(&acc.labels, &equation.output);
    one(support::transpose(b, acc.value, &perm)?)
}
