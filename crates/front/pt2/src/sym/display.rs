//! Readable infix printing (`2*s77`, `s77//2`, `Max(1, s0 - 1)`), which [`SymExpr::parse`] reads back.

use std::fmt::{self, Display, Formatter, Write};

use super::{CompareOp, SymExpr};

const COMPARE: u8 = 1;
const SUM: u8 = 2;
const PRODUCT: u8 = 3;
const UNARY: u8 = 4;
const POWER: u8 = 5;
const ATOM: u8 = 6;

impl SymExpr {
    fn precedence(&self) -> u8 {
        match self {
            SymExpr::Int(value) if *value < 0 => UNARY,
            SymExpr::Rational(..) => PRODUCT,
            SymExpr::Compare(..) => COMPARE,
            SymExpr::Add(args) if args.len() > 1 => SUM,
            SymExpr::Mul(args) if args.len() > 1 => PRODUCT,
            SymExpr::Add(args) | SymExpr::Mul(args) => {
                args.first().map_or(ATOM, SymExpr::precedence)
            }
            SymExpr::FloorDiv(..) | SymExpr::Mod(..) => PRODUCT,
            SymExpr::Pow(..) => POWER,
            _ => ATOM,
        }
    }

    fn write(&self, f: &mut Formatter<'_>, min_precedence: u8) -> fmt::Result {
        if self.precedence() < min_precedence {
            f.write_char('(')?;
            self.write_bare(f)?;
            f.write_char(')')
        } else {
            self.write_bare(f)
        }
    }

    fn write_bare(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SymExpr::Int(value) => write!(f, "{value}"),
            SymExpr::Rational(num, den) => write!(f, "{num}/{den}"),
            SymExpr::Bool(value) => f.write_str(if *value { "True" } else { "False" }),
            SymExpr::Symbol(name) => f.write_str(name),
            SymExpr::Add(args) => {
                for (i, term) in args.iter().enumerate() {
                    if i == 0 {
                        term.write(f, SUM)?;
                    } else if let Some(magnitude) = negated_term(term) {
                        f.write_str(" - ")?;
                        magnitude.write(f, PRODUCT)?;
                    } else {
                        f.write_str(" + ")?;
                        term.write(f, SUM)?;
                    }
                }
                Ok(())
            }
            SymExpr::Mul(args) => {
                let (factors, first) = match args.as_slice() {
                    [SymExpr::Int(-1), rest @ ..] if !rest.is_empty() => {
                        f.write_char('-')?;
                        // `-(-7)`, not `--7`.
                        let negative_literal = matches!(rest[0], SymExpr::Int(v) if v < 0);
                        (rest, if negative_literal { POWER } else { UNARY })
                    }
                    _ => (args.as_slice(), PRODUCT),
                };
                for (i, factor) in factors.iter().enumerate() {
                    if i > 0 {
                        f.write_char('*')?;
                    }
                    factor.write(f, if i == 0 { first } else { UNARY })?;
                }
                Ok(())
            }
            SymExpr::Pow(base, exponent) => {
                base.write(f, ATOM)?;
                f.write_str("**")?;
                exponent.write(f, UNARY)
            }
            SymExpr::FloorDiv(a, b) => binary(f, a, "//", b),
            SymExpr::Mod(a, b) => binary(f, a, " % ", b),
            SymExpr::CeilDiv(a, b) => call(f, "CeilDiv", [a.as_ref(), b]),
            SymExpr::ModularIndexing(a, b, c) => call(f, "ModularIndexing", [a.as_ref(), b, c]),
            SymExpr::Max(args) => call(f, "Max", args),
            SymExpr::Min(args) => call(f, "Min", args),
            SymExpr::And(args) => call(f, "And", args),
            SymExpr::Or(args) => call(f, "Or", args),
            SymExpr::Not(a) => call(f, "Not", [a.as_ref()]),
            SymExpr::Where(c, a, b) => call(f, "Where", [c.as_ref(), a, b]),
            SymExpr::Compare(op, a, b) => {
                a.write(f, SUM)?;
                f.write_str(match op {
                    CompareOp::Eq => " == ",
                    CompareOp::Ne => " != ",
                    CompareOp::Lt => " < ",
                    CompareOp::Le => " <= ",
                    CompareOp::Gt => " > ",
                    CompareOp::Ge => " >= ",
                })?;
                b.write(f, SUM)
            }
        }
    }
}

/// For a sum term that reads better subtracted, the positive magnitude: `-3` → `3`,
/// `-1*s0` → `s0`, `-2*s0` → `2*s0`.
fn negated_term(term: &SymExpr) -> Option<SymExpr> {
    match term {
        SymExpr::Int(value) if *value < 0 => value.checked_neg().map(SymExpr::Int),
        SymExpr::Mul(args) => match args.as_slice() {
            [SymExpr::Int(-1), rest @ ..] if !rest.is_empty() => Some(if rest.len() == 1 {
                rest[0].clone()
            } else {
                SymExpr::Mul(rest.to_vec())
            }),
            [SymExpr::Int(c), rest @ ..] if *c < 0 && !rest.is_empty() => {
                let mut factors = vec![SymExpr::Int(c.checked_neg()?)];
                factors.extend_from_slice(rest);
                Some(SymExpr::Mul(factors))
            }
            _ => None,
        },
        _ => None,
    }
}

fn binary(f: &mut Formatter<'_>, a: &SymExpr, op: &str, b: &SymExpr) -> fmt::Result {
    a.write(f, PRODUCT)?;
    f.write_str(op)?;
    b.write(f, UNARY)
}

fn call<'a>(
    f: &mut Formatter<'_>,
    name: &str,
    args: impl IntoIterator<Item = &'a SymExpr>,
) -> fmt::Result {
    f.write_str(name)?;
    f.write_char('(')?;
    for (i, arg) in args.into_iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        arg.write(f, COMPARE)?;
    }
    f.write_char(')')
}

impl Display for SymExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.write(f, COMPARE)
    }
}
