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

/// SplitMix64, for reproducible random expressions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

fn random_expr(rng: &mut Rng, depth: u32) -> SymExpr {
    let leaf = depth == 0 || rng.below(3) == 0;
    if leaf {
        return match rng.below(3) {
            0 => SymExpr::Int(rng.below(21) as i64 - 10),
            _ => SymExpr::Symbol(["s0", "s1", "u2"][rng.below(3) as usize].to_owned()),
        };
    }
    let kind = rng.below(9);
    let exponent = rng.below(3) as i64;
    let mut sub = || random_expr(rng, depth - 1);
    let (a, b) = (sub(), sub());
    match kind {
        0 => SymExpr::Add(vec![a, b, sub()]),
        1 => SymExpr::Mul(vec![a, b]),
        2 => SymExpr::Mul(vec![SymExpr::Int(-1), a]),
        3 => SymExpr::FloorDiv(Box::new(a), Box::new(b)),
        4 => SymExpr::Mod(Box::new(a), Box::new(b)),
        5 => SymExpr::Pow(Box::new(a), Box::new(SymExpr::Int(exponent))),
        6 => SymExpr::Max(vec![a, b]),
        7 => SymExpr::CeilDiv(Box::new(a), Box::new(b)),
        _ => SymExpr::Min(vec![a, b]),
    }
}

#[test]
fn printed_expressions_parse_back_to_the_same_value() {
    let mut rng = Rng(7);
    for case in 0..2000 {
        let expr = random_expr(&mut rng, 4);
        let text = expr.to_string();
        let reparsed = SymExpr::parse(&text).unwrap_or_else(|e| panic!("case {case}: {text}: {e}"));
        // Parsing folds `-(-7)` into `7`; from then on printing and parsing are stable.
        let normal = reparsed.to_string();
        assert_eq!(
            SymExpr::parse(&normal).unwrap().to_string(),
            normal,
            "case {case}: {text}"
        );
        for values in [[3, 5, -2], [1, 1, 1], [-7, 4, 9]] {
            let env = values_of(&values);
            let (a, b) = (expr.eval(&env), reparsed.eval(&env));
            match (&a, &b) {
                (Ok(x), Ok(y)) => assert_eq!(x, y, "case {case}: {text}"),
                (Err(x), Err(y)) => assert_eq!(
                    std::mem::discriminant(x),
                    std::mem::discriminant(y),
                    "case {case}: {text}"
                ),
                _ => panic!("case {case}: {text}: {a:?} vs {b:?}"),
            }
        }
    }
}

fn values_of(v: &[i64; 3]) -> HashMap<String, i64> {
    values(&[("s0", v[0]), ("s1", v[1]), ("u2", v[2])])
}

#[test]
fn arbitrary_text_never_panics() {
    const ALPHABET: &[u8] = b"()+-*/%,'=<>!&|~ 0123456789sSymbolIntegerAddMulFloorDivMaxPow_";
    let mut rng = Rng(11);
    for _ in 0..20_000 {
        let len = rng.below(40) as usize;
        let text: String = (0..len)
            .map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize] as char)
            .collect();
        if let Ok(expr) = SymExpr::parse(&text) {
            let _ = expr.eval(&values_of(&[2, 3, 4]));
            let shown = expr.to_string();
            let again = SymExpr::parse(&shown)
                .unwrap_or_else(|e| panic!("{text:?} printed as {shown:?}: {e}"));
            assert_eq!(again.to_string(), shown, "{text:?}");
        }
    }
}

#[test]
fn a_diagnostic_quotes_a_bounded_part_of_a_huge_expression() {
    let digits = "9".repeat(100_000);
    let error = SymExpr::parse(&format!("Integer({digits})")).unwrap_err();
    assert!(matches!(error, SymError::Overflow(_)), "{error:?}");
    let message = error.to_string();
    assert!(message.len() < 300, "{} bytes", message.len());
    assert!(message.contains("(100000 characters)"), "{message}");
    let unbound = SymError::Unbound("s".repeat(5000)).to_string();
    assert!(
        unbound.len() < 300 && unbound.contains("(5000 characters)"),
        "{unbound}"
    );
}
