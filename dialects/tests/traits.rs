//! The traits and region counts the op table gives ops, including those that depend on an
//! op's attributes.

use tpuc_ir::{
    BinaryOp, CollectiveAttrs, ComparisonDirection, CustomCallApiVersion, OpKind, Opcode, UnaryOp,
};

fn compare(direction: ComparisonDirection) -> OpKind {
    OpKind::Compare {
        direction,
        compare_type: None,
    }
}

fn custom_call(has_side_effect: bool) -> OpKind {
    OpKind::CustomCall {
        target: "foo".into(),
        backend_config: String::new(),
        has_side_effect,
        api_version: CustomCallApiVersion::Original,
    }
}

#[test]
fn commutativity_follows_the_op_and_the_comparison_direction() {
    assert!(OpKind::Binary(BinaryOp::Add).is_commutative());
    assert!(!OpKind::Binary(BinaryOp::Subtract).is_commutative());
    assert!(compare(ComparisonDirection::Eq).is_commutative());
    assert!(!compare(ComparisonDirection::Lt).is_commutative());
    assert!(!OpKind::Select.is_commutative());
}

#[test]
fn effects_and_purity() {
    assert!(custom_call(true).has_side_effect());
    assert!(!custom_call(false).has_side_effect());
    assert!(
        !custom_call(false).is_pure(),
        "a custom call's result is opaque"
    );
    assert!(OpKind::AllReduce(CollectiveAttrs::default()).has_side_effect());
    assert!(OpKind::Return.has_side_effect() && OpKind::Return.is_terminator());
    assert!(OpKind::RegionReturn.is_terminator());
    assert!(!OpKind::Reshape.has_side_effect() && OpKind::Reshape.is_pure());
    assert!(!OpKind::Call { callee: "f".into() }.is_pure());
}

#[test]
fn elementwise_ops() {
    assert!(OpKind::Unary(UnaryOp::Tanh).is_elementwise());
    assert!(compare(ComparisonDirection::Ge).is_elementwise());
    assert!(OpKind::Convert.is_elementwise());
    assert!(!OpKind::BitcastConvert.is_elementwise());
    assert!(
        !OpKind::Transpose {
            permutation: vec![1, 0]
        }
        .is_elementwise()
    );
}

#[test]
fn region_counts() {
    assert_eq!(OpKind::While.region_count(), Some(2));
    assert_eq!(OpKind::Case.region_count(), None);
    assert_eq!(
        OpKind::Reduce {
            dimensions: vec![0]
        }
        .region_count(),
        Some(1)
    );
    assert_eq!(OpKind::Binary(BinaryOp::Add).region_count(), Some(0));
}

#[test]
fn opcodes_round_trip_through_their_names() {
    let names: Vec<&str> = OpKind::names().collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "an op name is listed twice");
    for opcode in Opcode::all() {
        assert_eq!(Opcode::from_name(opcode.name()), Some(opcode));
    }
    assert_eq!(Opcode::from_name("stablehlo.nope"), None);
    assert_eq!(compare(ComparisonDirection::Eq).opcode(), Opcode::Compare);
}
