//! Printer snapshots of representative modules in both forms, and determinism.

mod common;

use tpuc_expect::expect_file;

use tpuc_ir::{
    BinaryOp, DenseElements, ElementType, FunctionBuilder, LocationStyle, Module, PrintOptions,
    TensorType, Visibility, print,
};

fn strip() -> PrintOptions {
    PrintOptions::default()
}

/// The reviewed output `name`: `tests/snapshots/printer/NAME.txt` (`BLESS=1` rewrites it).
fn snapshot(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/printer")
        .join(format!("{name}.txt"))
}

#[test]
fn mlp_generic() {
    expect_file(
        snapshot("mlp_generic"),
        &print::generic(&common::mlp(), &strip()),
    );
}

#[test]
fn mlp_pretty_with_location_aliases() {
    let options = PrintOptions::with_locations(LocationStyle::Aliases);
    expect_file(
        snapshot("mlp_pretty_with_location_aliases"),
        &print::pretty(&common::mlp(), &options),
    );
}

#[test]
fn mlp_pretty_with_inline_locations() {
    let options = PrintOptions::with_locations(LocationStyle::Inline);
    expect_file(
        snapshot("mlp_pretty_with_inline_locations"),
        &print::pretty(&common::mlp(), &options),
    );
}

#[test]
fn control_flow_pretty() {
    expect_file(
        snapshot("control_flow_pretty"),
        &print::pretty(&common::control(), &strip()),
    );
}

#[test]
fn control_flow_generic() {
    expect_file(
        snapshot("control_flow_generic"),
        &print::generic(&common::control(), &strip()),
    );
}

#[test]
fn shapes_and_conv_pretty() {
    let text = [common::shapes(), common::conv(), common::gather_scatter()]
        .iter()
        .map(|m| print::pretty(m, &strip()))
        .collect::<String>();
    expect_file(snapshot("shapes_and_conv_pretty"), &text);
}

#[test]
fn sharded_and_collectives_pretty() {
    let text = [common::sharded(), common::collectives(), common::misc()]
        .iter()
        .map(|m| print::pretty(m, &strip()))
        .collect::<String>();
    expect_file(snapshot("sharded_and_collectives_pretty"), &text);
}

#[test]
fn elementwise_and_dynamic_pretty() {
    let text = [common::elementwise(), common::dynamic()]
        .iter()
        .map(|m| print::pretty(m, &strip()))
        .collect::<String>();
    expect_file(snapshot("elementwise_and_dynamic_pretty"), &text);
}

#[test]
fn constants_pretty() {
    expect_file(
        snapshot("constants_pretty"),
        &print::pretty(&common::constants(), &strip()),
    );
}

#[test]
fn printing_is_deterministic() {
    let options = [
        strip(),
        PrintOptions::with_locations(LocationStyle::Inline),
        PrintOptions::with_locations(LocationStyle::Aliases),
    ];
    for ((name, first), (_, second)) in common::fixtures().iter().zip(common::fixtures()) {
        for option in &options {
            let a = print::generic(first, option);
            assert_eq!(a, print::generic(first, option), "{name}: printed twice");
            assert_eq!(a, print::generic(&second, option), "{name}: built twice");
            let a = print::pretty(first, option);
            assert_eq!(a, print::pretty(&second, option), "{name}: built twice");
        }
    }
}

#[test]
fn stripping_locations_leaves_no_loc() {
    for (name, module) in common::fixtures() {
        assert!(
            !print::generic(&module, &strip()).contains("loc("),
            "{name}"
        );
        assert!(!print::pretty(&module, &strip()).contains("loc("), "{name}");
    }
}

/// A function body of one compact reduce: the body op's location must survive printing, so
/// the compact form is used only when it equals the reduce's.
#[test]
fn compact_reduce_only_when_nothing_is_lost() {
    let build = |inner: tpuc_ir::Location| -> Module {
        let mut b = FunctionBuilder::new("main", Visibility::Public);
        let x = b.arg(TensorType::of(&[3], ElementType::F32));
        let zero = b
            .constant(
                TensorType::scalar(ElementType::F32),
                DenseElements::splat_f64(ElementType::F32, 0.0),
            )
            .unwrap();
        let r = b
            .reduce(&[x], &[zero], &[0], |b, a| {
                let saved = b.location().clone();
                b.set_location(inner.clone());
                let s = b.binary(BinaryOp::Add, a[0], a[1]);
                b.set_location(saved);
                Ok(vec![s?])
            })
            .unwrap();
        b.ret(&r).unwrap();
        common::module_of(vec![b.finish().unwrap()])
    };
    let located = PrintOptions::with_locations(LocationStyle::Inline);
    let same = build(tpuc_ir::Location::Unknown);
    assert!(print::pretty(&same, &located).contains("applies stablehlo.add"));
    let different = build(tpuc_ir::Location::name("inner"));
    assert!(!print::pretty(&different, &located).contains("applies"));
    assert!(print::pretty(&different, &strip()).contains("applies stablehlo.add"));
}
