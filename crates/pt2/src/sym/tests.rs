use std::collections::HashMap;

use super::{SymError, SymExpr};

fn values(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

const S77: &str = "Symbol('s77', positive=True, integer=True)";

#[test]
fn srepr_forms_torch_writes() {
    let cases: &[(String, &str, i64)] = &[
        (S77.to_owned(), "s77", 6),
        (format!("Mul(Integer(2), {S77})"), "2*s77", 12),
        (format!("Add({S77}, Integer(-1))"), "s77 - 1", 5),
        (
            format!("Add(Mul(Integer(-1), {S77}), Integer(8))"),
            "-s77 + 8",
            2,
        ),
        (format!("FloorDiv({S77}, Integer(2))"), "s77//2", 3),
        (
            format!("FloorDiv(Add({S77}, Integer(1)), Integer(2))"),
            "(s77 + 1)//2",
            3,
        ),
        (format!("Mod({S77}, Integer(4))"), "s77 % 4", 2),
        (
            format!("PythonMod(Mul(Integer(-1), {S77}), Integer(4))"),
            "-s77 % 4",
            2,
        ),
        (format!("CeilDiv({S77}, Integer(4))"), "CeilDiv(s77, 4)", 2),
        (format!("CleanDiv({S77}, Integer(3))"), "s77//3", 2),
        (format!("Pow({S77}, Integer(2))"), "s77**2", 36),
        (
            format!("Max(Integer(1), Add({S77}, Integer(-7)))"),
            "Max(1, s77 - 7)",
            1,
        ),
        (format!("Min(Integer(4), {S77})"), "Min(4, s77)", 4),
        (
            format!("ModularIndexing({S77}, Integer(2), Integer(2))"),
            "ModularIndexing(s77, 2, 2)",
            1,
        ),
        (format!("Mul(Rational(1, 2), {S77})"), "1/2*s77", 3),
        (
            format!("Mul(Integer(-2), {S77}, Symbol('s1', integer=True))"),
            "-2*s77*s1",
            -36,
        ),
        (
            format!("Add({S77}, Mul(Integer(-2), Symbol('s1', integer=True)))"),
            "s77 - 2*s1",
            0,
        ),
        (format!("StrictLessThan(Integer(2), {S77})"), "2 < s77", 1),
        (
            format!("Eq(Mod({S77}, Integer(2)), Integer(0))"),
            "s77 % 2 == 0",
            1,
        ),
        (
            format!("Where(GreaterThan({S77}, Integer(3)), Integer(10), Integer(20))"),
            "Where(s77 >= 3, 10, 20)",
            10,
        ),
        (
            "Mul(Integer(-1), FloorDiv(Symbol('a', integer=True), Integer(4)))".into(),
            "-(a//4)",
            -1,
        ),
    ];
    let env = values(&[("s77", 6), ("s1", 3), ("a", 7)]);
    for (text, shown, value) in cases {
        let expr = SymExpr::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(expr.to_string(), *shown, "{text}");
        assert_eq!(expr.eval(&env), Ok(*value), "{text}");
        let reparsed = SymExpr::parse(shown).unwrap_or_else(|e| panic!("{shown}: {e}"));
        assert_eq!(reparsed.eval(&env), Ok(*value), "reparsed {shown}");
        assert_eq!(reparsed.to_string(), *shown, "reprinted {shown}");
    }
}

#[test]
fn python_rounding() {
    let env = values(&[("a", -7), ("b", 2)]);
    let eval = |text: &str| SymExpr::parse(text).unwrap().eval(&env);
    assert_eq!(eval("a//b"), Ok(-4));
    assert_eq!(eval("a % b"), Ok(1));
    assert_eq!(eval("7 % -2"), Ok(-1));
    assert_eq!(eval("CeilDiv(a, b)"), Ok(-3));
    assert_eq!(eval("CeilDiv(7, b)"), Ok(4));
    assert_eq!(eval("-a**2"), Ok(-49));
    assert_eq!(eval("b**-1*4"), Ok(2));
}

#[test]
fn evaluation_errors() {
    let env = values(&[("s0", i64::MAX), ("z", 0), ("m", i64::MIN)]);
    let eval = |text: &str| SymExpr::parse(text).unwrap().eval(&env);
    assert!(matches!(eval("s0 + 1"), Err(SymError::Overflow(_))));
    assert!(matches!(eval("2*s0"), Err(SymError::Overflow(_))));
    assert!(matches!(eval("s0**2"), Err(SymError::Overflow(_))));
    assert!(matches!(eval("m//-1"), Err(SymError::Overflow(_))));
    assert_eq!(eval("m % -1"), Ok(0));
    assert!(matches!(eval("4//z"), Err(SymError::DivisionByZero(_))));
    assert!(matches!(eval("4 % z"), Err(SymError::DivisionByZero(_))));
    assert!(matches!(eval("z**-1"), Err(SymError::DivisionByZero(_))));
    assert!(matches!(eval("unknown + 1"), Err(SymError::Unbound(name)) if name == "unknown"));
    assert!(matches!(eval("1/2*3"), Err(SymError::NotInteger(_))));
    assert!(matches!(eval("2**99999999999"), Err(SymError::Overflow(_))));
}

#[test]
fn parse_errors() {
    for bad in [
        "",
        "Symbol(s0)",
        "Symbol('')",
        "Symbol('a b')",
        "Integer(x)",
        "Add()",
        "FloorDiv(Integer(1))",
        "Add(Integer(1), Integer(2)",
        "1 +",
        "s0 s1",
        "Symbol('s0",
        "99999999999999999999",
        "Add(Integer(1), key=Integer(2) junk)",
    ] {
        assert!(SymExpr::parse(bad).is_err(), "{bad:?} should not parse");
    }
    assert!(matches!(
        SymExpr::parse("Float('1.5', precision=53)"),
        Err(SymError::Unsupported { name }) if name == "Float"
    ));
    assert!(matches!(
        SymExpr::parse("__import__('os')"),
        Err(SymError::Unsupported { .. })
    ));
}

#[test]
fn depth_is_bounded() {
    let nested = format!("{}1{}", "Add(".repeat(10_000), ")".repeat(10_000));
    assert_eq!(SymExpr::parse(&nested), Err(SymError::TooDeep));
    let parens = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(SymExpr::parse(&parens), Err(SymError::TooDeep));
    let minus = format!("{}1", "-".repeat(100_000));
    assert_eq!(SymExpr::parse(&minus), Err(SymError::TooDeep));
    // Left-associative chains build deep trees without deep parser recursion.
    let chain = format!("a{}", "//2".repeat(10_000));
    assert_eq!(SymExpr::parse(&chain), Err(SymError::TooDeep));
    // Flat n-ary chains are fine at any length.
    let sum = format!("a{}", " + 1".repeat(10_000));
    let env = values(&[("a", 1)]);
    assert_eq!(SymExpr::parse(&sum).unwrap().eval(&env), Ok(10_001));
}

#[test]
fn free_symbols_are_sorted_and_unique() {
    let expr = SymExpr::parse("Add(Symbol('s1'), Mul(Symbol('s0'), Symbol('s1')))").unwrap();
    assert_eq!(
        expr.free_symbols().into_iter().collect::<Vec<_>>(),
        ["s0", "s1"]
    );
    assert_eq!(SymExpr::parse(S77).unwrap().as_symbol(), Some("s77"));
}
