//! Evaluation with exact rational intermediates (sympy may write `Rational(1, 2)*s0`) and checked
//! 64-bit arithmetic: every intermediate numerator and denominator must fit in an `i64`.

use std::collections::HashMap;

use super::parse::reduce;
use super::{CompareOp, SymError, SymExpr};

/// An exact value `num/den` with `den > 0`, in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Q {
    num: i64,
    den: i64,
}

impl Q {
    fn int(value: i64) -> Q {
        Q { num: value, den: 1 }
    }

    fn bool(value: bool) -> Q {
        Q::int(value as i64)
    }

    fn new(num: i128, den: i128, at: &SymExpr) -> Result<Q, SymError> {
        if den == 0 {
            return Err(SymError::DivisionByZero(at.to_string()));
        }
        let (num, den) = reduce(num, den);
        match (i64::try_from(num), i64::try_from(den)) {
            (Ok(num), Ok(den)) => Ok(Q { num, den }),
            _ => Err(SymError::Overflow(at.to_string())),
        }
    }

    fn to_int(self, at: &SymExpr) -> Result<i64, SymError> {
        if self.den == 1 {
            Ok(self.num)
        } else {
            Err(SymError::NotInteger(at.to_string()))
        }
    }

    fn add(self, rhs: Q, at: &SymExpr) -> Result<Q, SymError> {
        let (a, b, c, d) = self.wide(rhs);
        Q::new(a * d + c * b, b * d, at)
    }

    fn mul(self, rhs: Q, at: &SymExpr) -> Result<Q, SymError> {
        let (a, b, c, d) = self.wide(rhs);
        Q::new(a * c, b * d, at)
    }

    fn wide(self, rhs: Q) -> (i128, i128, i128, i128) {
        (
            self.num as i128,
            self.den as i128,
            rhs.num as i128,
            rhs.den as i128,
        )
    }

    fn cmp(self, rhs: Q) -> std::cmp::Ordering {
        let (a, b, c, d) = self.wide(rhs);
        (a * d).cmp(&(c * b))
    }
}

impl SymExpr {
    /// Evaluates the expression for the given symbol values. Booleans evaluate to 0 or 1.
    pub fn eval(&self, values: &HashMap<String, i64>) -> Result<i64, SymError> {
        self.eval_with(&|name| values.get(name).copied())
    }

    /// Evaluates the expression, looking symbol values up with `lookup`.
    pub fn eval_with(&self, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, SymError> {
        self.value(lookup)?.to_int(self)
    }

    fn value(&self, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<Q, SymError> {
        let int = |expr: &SymExpr| expr.value(lookup)?.to_int(expr);
        Ok(match self {
            SymExpr::Int(value) => Q::int(*value),
            SymExpr::Rational(num, den) => Q::new(*num as i128, *den as i128, self)?,
            SymExpr::Bool(value) => Q::bool(*value),
            SymExpr::Symbol(name) => {
                Q::int(lookup(name).ok_or_else(|| SymError::Unbound(name.clone()))?)
            }
            SymExpr::Add(args) => args
                .iter()
                .try_fold(Q::int(0), |acc, arg| acc.add(arg.value(lookup)?, self))?,
            SymExpr::Mul(args) => args
                .iter()
                .try_fold(Q::int(1), |acc, arg| acc.mul(arg.value(lookup)?, self))?,
            SymExpr::Pow(base, exponent) => {
                let base = base.value(lookup)?;
                let exponent = int(exponent)?;
                let magnitude = u32::try_from(exponent.unsigned_abs())
                    .map_err(|_| SymError::Overflow(self.to_string()))?;
                let num = base.num.checked_pow(magnitude);
                let den = base.den.checked_pow(magnitude);
                let (Some(num), Some(den)) = (num, den) else {
                    return Err(SymError::Overflow(self.to_string()));
                };
                if exponent < 0 {
                    Q::new(den as i128, num as i128, self)?
                } else {
                    Q::new(num as i128, den as i128, self)?
                }
            }
            SymExpr::FloorDiv(a, b) => Q::int(floor_div(int(a)?, int(b)?, self)?),
            SymExpr::CeilDiv(a, b) => {
                let (a, b) = (int(a)?, int(b)?);
                let negated = a
                    .checked_neg()
                    .ok_or_else(|| SymError::Overflow(self.to_string()))?;
                let floor = floor_div(negated, b, self)?;
                Q::int(
                    floor
                        .checked_neg()
                        .ok_or_else(|| SymError::Overflow(self.to_string()))?,
                )
            }
            SymExpr::Mod(a, b) => Q::int(python_mod(int(a)?, int(b)?, self)?),
            SymExpr::ModularIndexing(a, b, c) => {
                let quotient = floor_div(int(a)?, int(b)?, self)?;
                Q::int(python_mod(quotient, int(c)?, self)?)
            }
            SymExpr::Max(args) | SymExpr::Min(args) => {
                let want = if matches!(self, SymExpr::Max(_)) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Less
                };
                let mut best: Option<Q> = None;
                for arg in args {
                    let value = arg.value(lookup)?;
                    if best.is_none_or(|b| value.cmp(b) == want) {
                        best = Some(value);
                    }
                }
                best.ok_or_else(|| SymError::NotInteger(self.to_string()))?
            }
            SymExpr::Compare(op, a, b) => {
                let ordering = a.value(lookup)?.cmp(b.value(lookup)?);
                Q::bool(match op {
                    CompareOp::Eq => ordering.is_eq(),
                    CompareOp::Ne => ordering.is_ne(),
                    CompareOp::Lt => ordering.is_lt(),
                    CompareOp::Le => ordering.is_le(),
                    CompareOp::Gt => ordering.is_gt(),
                    CompareOp::Ge => ordering.is_ge(),
                })
            }
            SymExpr::And(args) => {
                let mut all = true;
                for arg in args {
                    all &= int(arg)? != 0;
                }
                Q::bool(all)
            }
            SymExpr::Or(args) => {
                let mut any = false;
                for arg in args {
                    any |= int(arg)? != 0;
                }
                Q::bool(any)
            }
            SymExpr::Not(a) => Q::bool(int(a)? == 0),
            SymExpr::Where(condition, if_true, if_false) => {
                if int(condition)? != 0 {
                    if_true.value(lookup)?
                } else {
                    if_false.value(lookup)?
                }
            }
        })
    }
}

fn floor_div(a: i64, b: i64, at: &SymExpr) -> Result<i64, SymError> {
    if b == 0 {
        return Err(SymError::DivisionByZero(at.to_string()));
    }
    let quotient = a
        .checked_div(b)
        .ok_or_else(|| SymError::Overflow(at.to_string()))?;
    // Truncation rounds towards zero; step down when the exact quotient is negative and inexact.
    if a % b != 0 && ((a < 0) != (b < 0)) {
        Ok(quotient - 1)
    } else {
        Ok(quotient)
    }
}

fn python_mod(a: i64, b: i64, at: &SymExpr) -> Result<i64, SymError> {
    if b == 0 {
        return Err(SymError::DivisionByZero(at.to_string()));
    }
    let remainder = a.checked_rem(b).unwrap_or(0);
    if remainder != 0 && ((remainder < 0) != (b < 0)) {
        Ok(remainder + b)
    } else {
        Ok(remainder)
    }
}
