//! Recursive-descent parser for a small subset of Python expression syntax: sympy `srepr` calls
//! (`Add(Symbol('s0', integer=True), Integer(-1))`) and infix arithmetic (`2*s0 + 1`, `s0//2`).
//! Every built node's depth is tracked so that left-associative chains cannot build a tree deeper
//! than [`MAX_DEPTH`] either.

use super::{CompareOp, MAX_DEPTH, SymError, SymExpr};

pub(super) fn parse(text: &str) -> Result<SymExpr, SymError> {
    let mut parser = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let (expr, _) = parser.expr()?;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(parser.error("unexpected trailing text"));
    }
    Ok(expr)
}

/// An expression and the depth of its tree.
type Node = (SymExpr, usize);

/// A call argument: an expression, a quoted string, or `name=value` (sympy assumptions).
enum CallArg {
    Expr(Node),
    Str(String),
    Keyword,
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// Current recursion depth of the parser itself.
    depth: usize,
}

fn node(expr: SymExpr, child_depths: impl IntoIterator<Item = usize>) -> Result<Node, SymError> {
    let depth = 1 + child_depths.into_iter().max().unwrap_or(0);
    if depth > MAX_DEPTH {
        return Err(SymError::TooDeep);
    }
    Ok((expr, depth))
}

fn binary(
    make: impl FnOnce(Box<SymExpr>, Box<SymExpr>) -> SymExpr,
    (a, da): Node,
    (b, db): Node,
) -> Result<Node, SymError> {
    node(make(Box::new(a), Box::new(b)), [da, db])
}

/// Appends `item` to an n-ary node of the same kind, or starts a new one.
fn extend(
    (acc, acc_depth): Node,
    (item, item_depth): Node,
    is_kind: fn(&SymExpr) -> bool,
    make: fn(Vec<SymExpr>) -> SymExpr,
) -> Result<Node, SymError> {
    let (mut args, args_depth) = if is_kind(&acc) {
        match acc {
            SymExpr::Add(args) | SymExpr::Mul(args) | SymExpr::And(args) | SymExpr::Or(args) => {
                (args, acc_depth.saturating_sub(1))
            }
            other => (vec![other], acc_depth),
        }
    } else {
        (vec![acc], acc_depth)
    };
    args.push(item);
    node(make(args), [args_depth, item_depth])
}

fn negate((expr, depth): Node) -> Result<Node, SymError> {
    match expr {
        SymExpr::Int(value) => match value.checked_neg() {
            Some(negated) => Ok((SymExpr::Int(negated), depth)),
            None => Err(SymError::Overflow(value.to_string())),
        },
        other => node(SymExpr::Mul(vec![SymExpr::Int(-1), other]), [depth]),
    }
}

impl<'a> Parser<'a> {
    fn error(&self, message: &str) -> SymError {
        SymError::Parse {
            text: self.text.to_owned(),
            offset: self.pos,
            message: message.to_owned(),
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// Consumes `token` (after whitespace) if it comes next.
    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), SymError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{token}`")))
        }
    }

    fn enter(&mut self) -> Result<(), SymError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SymError::TooDeep);
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Node, SymError> {
        self.enter()?;
        let result = self.or();
        self.depth -= 1;
        result
    }

    fn or(&mut self) -> Result<Node, SymError> {
        let mut acc = self.and()?;
        while self.eat("|") {
            let rhs = self.and()?;
            acc = extend(acc, rhs, |e| matches!(e, SymExpr::Or(_)), SymExpr::Or)?;
        }
        Ok(acc)
    }

    fn and(&mut self) -> Result<Node, SymError> {
        let mut acc = self.comparison()?;
        while self.eat("&") {
            let rhs = self.comparison()?;
            acc = extend(acc, rhs, |e| matches!(e, SymExpr::And(_)), SymExpr::And)?;
        }
        Ok(acc)
    }

    fn comparison(&mut self) -> Result<Node, SymError> {
        let lhs = self.sum()?;
        const OPS: [(&str, CompareOp); 6] = [
            ("==", CompareOp::Eq),
            ("!=", CompareOp::Ne),
            ("<=", CompareOp::Le),
            (">=", CompareOp::Ge),
            ("<", CompareOp::Lt),
            (">", CompareOp::Gt),
        ];
        for (token, op) in OPS {
            if self.eat(token) {
                let rhs = self.sum()?;
                return binary(|a, b| SymExpr::Compare(op, a, b), lhs, rhs);
            }
        }
        Ok(lhs)
    }

    fn sum(&mut self) -> Result<Node, SymError> {
        let mut acc = self.term()?;
        loop {
            let rhs = if self.eat("+") {
                self.term()?
            } else if self.eat("-") {
                negate(self.term()?)?
            } else {
                return Ok(acc);
            };
            acc = extend(acc, rhs, |e| matches!(e, SymExpr::Add(_)), SymExpr::Add)?;
        }
    }

    fn term(&mut self) -> Result<Node, SymError> {
        let mut acc = self.unary()?;
        loop {
            if self.eat("**") {
                // `**` binds tighter than unary minus on its left; handled in `power`.
                return Err(self.error("unexpected `**`"));
            } else if self.eat("//") {
                let rhs = self.unary()?;
                acc = binary(SymExpr::FloorDiv, acc, rhs)?;
            } else if self.eat("*") {
                let rhs = self.unary()?;
                acc = extend(acc, rhs, |e| matches!(e, SymExpr::Mul(_)), SymExpr::Mul)?;
            } else if self.eat("/") {
                let rhs = self.unary()?;
                acc = divide(acc, rhs)?;
            } else if self.eat("%") {
                let rhs = self.unary()?;
                acc = binary(SymExpr::Mod, acc, rhs)?;
            } else {
                return Ok(acc);
            }
        }
    }

    fn unary(&mut self) -> Result<Node, SymError> {
        if self.eat("-") {
            self.enter()?;
            let operand = self.unary();
            self.depth -= 1;
            negate(operand?)
        } else if self.eat("~") {
            self.enter()?;
            let operand = self.unary();
            self.depth -= 1;
            let (operand, depth) = operand?;
            node(SymExpr::Not(Box::new(operand)), [depth])
        } else {
            self.power()
        }
    }

    fn power(&mut self) -> Result<Node, SymError> {
        let base = self.atom()?;
        if self.eat("**") {
            self.enter()?;
            let exponent = self.unary();
            self.depth -= 1;
            return binary(SymExpr::Pow, base, exponent?);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Node, SymError> {
        self.skip_ws();
        let start = self.pos;
        let rest = self.rest();
        let Some(first) = rest.chars().next() else {
            return Err(self.error("unexpected end of expression"));
        };
        if first == '(' {
            self.pos += 1;
            let inner = self.expr()?;
            self.expect(")")?;
            return Ok(inner);
        }
        if first.is_ascii_digit() {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            self.pos += len;
            return match rest[..len].parse::<i64>() {
                Ok(value) => Ok((SymExpr::Int(value), 0)),
                Err(_) => Err(SymError::Overflow(rest[..len].to_owned())),
            };
        }
        if first.is_ascii_alphabetic() || first == '_' {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..len];
            self.pos += len;
            if self.eat("(") {
                return self.call(name, start);
            }
            return Ok(match name {
                "True" | "true" => (SymExpr::Bool(true), 0),
                "False" | "false" => (SymExpr::Bool(false), 0),
                "oo" | "zoo" | "nan" | "int_oo" | "None" => {
                    self.pos = start;
                    return Err(SymError::Unsupported {
                        name: name.to_owned(),
                    });
                }
                _ => (SymExpr::Symbol(name.to_owned()), 0),
            });
        }
        Err(self.error("expected a number, a name or `(`"))
    }

    fn call_args(&mut self) -> Result<Vec<CallArg>, SymError> {
        let mut args = Vec::new();
        if self.eat(")") {
            return Ok(args);
        }
        loop {
            self.skip_ws();
            let rest = self.rest();
            if let Some(quote @ ('\'' | '"')) = rest.chars().next() {
                let Some(len) = rest[1..].find(quote) else {
                    return Err(self.error("unterminated string"));
                };
                args.push(CallArg::Str(rest[1..1 + len].to_owned()));
                self.pos += len + 2;
            } else if is_keyword_arg(rest) {
                let eq = rest.find('=').unwrap_or(0);
                self.pos += eq + 1;
                // Assumption values are literals such as True; parse and drop them.
                self.expr()?;
                args.push(CallArg::Keyword);
            } else {
                args.push(CallArg::Expr(self.expr()?));
            }
            if self.eat(")") {
                return Ok(args);
            }
            self.expect(",")?;
        }
    }

    fn call(&mut self, name: &str, start: usize) -> Result<Node, SymError> {
        self.enter()?;
        let args = self.call_args();
        self.depth -= 1;
        let args = args?;
        let reset = |parser: &mut Self| parser.pos = start;
        let arity = |expected: &'static str, got: usize| SymError::Arity {
            name: name.to_owned(),
            expected,
            got,
        };
        match name {
            "Symbol" | "Dummy" => match args.as_slice() {
                [CallArg::Str(symbol), rest @ ..]
                    if is_identifier(symbol)
                        && rest.iter().all(|a| matches!(a, CallArg::Keyword)) =>
                {
                    Ok((SymExpr::Symbol(symbol.clone()), 0))
                }
                _ => {
                    reset(self);
                    Err(self.error("`Symbol` takes a name string and keyword assumptions"))
                }
            },
            "Integer" => match exprs(&args).as_deref() {
                Some([(SymExpr::Int(value), _)]) => Ok((SymExpr::Int(*value), 0)),
                _ => {
                    reset(self);
                    Err(self.error("`Integer` takes one integer literal"))
                }
            },
            "Rational" => match exprs(&args).as_deref() {
                Some([(SymExpr::Int(p), _), (SymExpr::Int(q), _)]) => {
                    divide((SymExpr::Int(*p), 0), (SymExpr::Int(*q), 0))
                }
                _ => {
                    reset(self);
                    Err(self.error("`Rational` takes two integer literals"))
                }
            },
            "BooleanTrue" => Ok((SymExpr::Bool(true), 0)),
            "BooleanFalse" => Ok((SymExpr::Bool(false), 0)),
            _ if !is_known_function(name) => {
                reset(self);
                Err(SymError::Unsupported {
                    name: name.to_owned(),
                })
            }
            _ => {
                let Some(nodes) = exprs(&args) else {
                    reset(self);
                    return Err(self.error("expected expression arguments"));
                };
                let got = nodes.len();
                let depths: Vec<usize> = nodes.iter().map(|(_, d)| *d).collect();
                let mut exprs: Vec<SymExpr> = nodes.into_iter().map(|(e, _)| e).collect();
                let boxed = |exprs: &mut Vec<SymExpr>| Box::new(exprs.remove(0));
                let expr = match (name, got) {
                    ("Add", 1..) => SymExpr::Add(exprs),
                    ("Mul", 1..) => SymExpr::Mul(exprs),
                    ("Max", 1..) => SymExpr::Max(exprs),
                    ("Min", 1..) => SymExpr::Min(exprs),
                    ("And", 1..) => SymExpr::And(exprs),
                    ("Or", 1..) => SymExpr::Or(exprs),
                    ("Add" | "Mul" | "Max" | "Min" | "And" | "Or", _) => {
                        return Err(arity("at least 1", got));
                    }
                    ("Pow" | "PowByNatural", 2) => {
                        SymExpr::Pow(boxed(&mut exprs), boxed(&mut exprs))
                    }
                    ("FloorDiv" | "CleanDiv", 2) => {
                        SymExpr::FloorDiv(boxed(&mut exprs), boxed(&mut exprs))
                    }
                    ("CeilDiv", 2) => SymExpr::CeilDiv(boxed(&mut exprs), boxed(&mut exprs)),
                    ("Mod" | "PythonMod", 2) => SymExpr::Mod(boxed(&mut exprs), boxed(&mut exprs)),
                    ("ModularIndexing", 3) => SymExpr::ModularIndexing(
                        boxed(&mut exprs),
                        boxed(&mut exprs),
                        boxed(&mut exprs),
                    ),
                    ("Where", 3) => {
                        SymExpr::Where(boxed(&mut exprs), boxed(&mut exprs), boxed(&mut exprs))
                    }
                    ("Not", 1) => SymExpr::Not(boxed(&mut exprs)),
                    ("Identity", 1) => return Ok((exprs.remove(0), depths[0])),
                    (cmp, 2) if compare_op(cmp).is_some() => {
                        let op = compare_op(cmp).unwrap_or(CompareOp::Eq);
                        SymExpr::Compare(op, boxed(&mut exprs), boxed(&mut exprs))
                    }
                    (
                        "Pow" | "PowByNatural" | "FloorDiv" | "CleanDiv" | "CeilDiv" | "Mod"
                        | "PythonMod",
                        _,
                    ) => return Err(arity("2", got)),
                    ("ModularIndexing" | "Where", _) => return Err(arity("3", got)),
                    ("Not" | "Identity", _) => return Err(arity("1", got)),
                    (cmp, _) if compare_op(cmp).is_some() => return Err(arity("2", got)),
                    _ => {
                        reset(self);
                        return Err(SymError::Unsupported {
                            name: name.to_owned(),
                        });
                    }
                };
                node(expr, depths)
            }
        }
    }
}

fn is_known_function(name: &str) -> bool {
    const FUNCTIONS: [&str; 17] = [
        "Add",
        "Mul",
        "Max",
        "Min",
        "And",
        "Or",
        "Pow",
        "PowByNatural",
        "FloorDiv",
        "CleanDiv",
        "CeilDiv",
        "Mod",
        "PythonMod",
        "ModularIndexing",
        "Where",
        "Not",
        "Identity",
    ];
    FUNCTIONS.contains(&name) || compare_op(name).is_some()
}

fn compare_op(name: &str) -> Option<CompareOp> {
    Some(match name {
        "Eq" | "Equality" => CompareOp::Eq,
        "Ne" | "Unequality" => CompareOp::Ne,
        "Lt" | "StrictLessThan" => CompareOp::Lt,
        "Le" | "LessThan" => CompareOp::Le,
        "Gt" | "StrictGreaterThan" => CompareOp::Gt,
        "Ge" | "GreaterThan" => CompareOp::Ge,
        _ => return None,
    })
}

/// The call's arguments if all are expressions.
fn exprs(args: &[CallArg]) -> Option<Vec<Node>> {
    args.iter()
        .map(|arg| match arg {
            CallArg::Expr(node) => Some(node.clone()),
            _ => None,
        })
        .collect()
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `name=` (but not `name==`) at the start of `rest`.
fn is_keyword_arg(rest: &str) -> bool {
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    if len == 0 || !is_identifier(&rest[..len]) {
        return false;
    }
    let after = rest[len..].trim_start();
    after.starts_with('=') && !after.starts_with("==")
}

/// `a / b`: an exact rational for integer literals, `a * b**-1` otherwise.
fn divide(lhs: Node, rhs: Node) -> Result<Node, SymError> {
    match (&lhs.0, &rhs.0) {
        (SymExpr::Int(p), SymExpr::Int(q)) => {
            let text = || format!("{p}/{q}");
            if *q == 0 {
                return Err(SymError::DivisionByZero(text()));
            }
            let (p, q) = reduce(*p as i128, *q as i128);
            let p = i64::try_from(p).map_err(|_| SymError::Overflow(text()))?;
            let q = i64::try_from(q).map_err(|_| SymError::Overflow(text()))?;
            Ok((
                if q == 1 {
                    SymExpr::Int(p)
                } else {
                    SymExpr::Rational(p, q)
                },
                0,
            ))
        }
        _ => {
            let inverse = binary(SymExpr::Pow, rhs, (SymExpr::Int(-1), 0))?;
            extend(lhs, inverse, |e| matches!(e, SymExpr::Mul(_)), SymExpr::Mul)
        }
    }
}

/// Reduces `p/q` to lowest terms with a positive denominator (`q != 0`).
pub(super) fn reduce(p: i128, q: i128) -> (i128, i128) {
    let g = gcd(p.unsigned_abs(), q.unsigned_abs()) as i128;
    let (p, q) = (p / g, q / g);
    if q < 0 { (-p, -q) } else { (p, q) }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}
