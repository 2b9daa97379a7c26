//! Conformance suite (issue #3): for every op kind, small modules built with the builder,
//! verified, printed in both forms (without locations, inline, with aliases), parsed back and
//! printed again to the same bytes, compiled from the generic and the pretty text and run on
//! XLA:CPU against expected values computed here, and compiled from both texts for `v5e:2x2`
//! through libtpu. Where a plugin rejects an op, the case records the plugin's message.
//!
//! Each family below is one test over a table of cases; `conformance/support.rs` holds the
//! pipeline every case goes through. Run with `--nocapture` to see one line per case.

mod conformance {
    pub mod chlo;
    pub mod collectives;
    pub mod contraction;
    pub mod control;
    pub mod dynamic;
    pub mod elementwise;
    pub mod metadata;
    pub mod reduction;
    pub mod shapes;
    pub mod support;
    pub mod tuples_io;
}

use conformance::*;

#[test]
fn elementwise_unary() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("unary", elementwise::unary_cases());
}

#[test]
fn elementwise_binary() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("binary", elementwise::binary_cases());
}

#[test]
fn compare_select_convert_constants() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("misc elementwise", elementwise::other_cases());
}

#[test]
fn shapes_and_indexing() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("shapes", shapes::cases());
}

#[test]
fn contractions() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("contraction", contraction::cases());
}

#[test]
fn reductions_and_sorting() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("reduction", reduction::cases());
}

#[test]
fn control_flow_and_calls() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("control", control::cases());
}

#[test]
fn collectives_on_two_devices() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("collectives", collectives::cases());
}

#[test]
fn dynamic_shape_ops() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("dynamic", dynamic::cases());
}

#[test]
fn chlo_ops() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("chlo", chlo::cases());
}

#[test]
fn tuples_tokens_and_io() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("tuples and io", tuples_io::cases());
}

#[test]
fn locations_and_attributes() {
    tpuc_expect::skip_without!(CpuPlugin);
    support::run_all("metadata", metadata::cases());
}

/// Every op kind of the IR has at least one case above (found in the cases' generic text,
/// where each op is spelled `"name"(`).
#[test]
fn every_op_kind_has_a_case() {
    let families = [
        elementwise::unary_cases(),
        elementwise::binary_cases(),
        elementwise::other_cases(),
        shapes::cases(),
        contraction::cases(),
        reduction::cases(),
        control::cases(),
        collectives::cases(),
        dynamic::cases(),
        metadata::cases(),
        chlo::cases(),
        tuples_io::cases(),
    ];
    let texts: Vec<String> = families
        .iter()
        .flatten()
        .filter_map(|case| case.module.as_ref().ok())
        .map(|module| tpuc_ir::print::generic(module, &tpuc_ir::PrintOptions::default()))
        .collect();
    let missing: Vec<&str> = tpuc_ir::OpKind::names()
        .filter(|name| {
            !texts
                .iter()
                .any(|text| text.contains(&format!("\"{name}\"(")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ops without a conformance case: {missing:?}"
    );
}
