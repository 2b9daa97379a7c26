//! What the op table declares for every op, and that the builder produces what it declares.

use crate::attr::{ComparisonDirection, RngAlgorithm};
use crate::builder::FunctionBuilder;
use crate::function::Visibility;
use crate::op::{Arity, BinaryOp, ChloUnaryOp, FoldKind, OpKind, Opcode, ShardingRuleKind, Syntax};
use crate::types::{ElementType, TensorType};

#[test]
fn every_op_declares_its_fold_and_sharding_rule() {
    let ops: Vec<Opcode> = Opcode::all().collect();
    assert!(ops.len() > 100, "the table lists every op");
    for op in ops {
        let (fold, rule) = (op.fold_kind(), op.sharding_rule());
        if fold != FoldKind::None {
            assert_eq!(
                op.results(),
                Arity::Exactly(1),
                "{}: folds one result",
                op.name()
            );
        }
        if rule == ShardingRuleKind::Elementwise {
            assert_eq!(op.results(), Arity::Exactly(1), "{}", op.name());
        }
    }
    let declared = |op: Opcode| (op.fold_kind(), op.sharding_rule());
    use {FoldKind as F, ShardingRuleKind as R};
    let add = Opcode::Binary(BinaryOp::Add);
    assert_eq!(declared(add), (F::Elementwise, R::Elementwise));
    assert_eq!(declared(Opcode::Transpose), (F::Layout, R::Transpose));
    assert_eq!(declared(Opcode::DotGeneral), (F::None, R::DotGeneral));
    assert_eq!(declared(Opcode::While), (F::None, R::None));
    let erf = Opcode::ChloUnary(ChloUnaryOp::Erf);
    assert_eq!(declared(erf), (F::None, R::Elementwise));
}

#[test]
fn forms_agree_with_the_counts_they_print() {
    for op in Opcode::all() {
        match op.syntax() {
            Syntax::Return => assert_eq!(op.results(), Arity::Exactly(0), "{}", op.name()),
            Syntax::ResultType | Syntax::Constant | Syntax::Iota(_) => {
                assert_eq!(op.operands(), Arity::Exactly(0), "{}", op.name());
                assert_eq!(op.results(), Arity::Exactly(1), "{}", op.name());
            }
            _ => {}
        }
    }
}

#[test]
fn declared_counts_agree_with_what_the_builder_produces() {
    let f32s = |shape: &[u64]| TensorType::of(shape, ElementType::F32);
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[2, 3]));
    let scale = b.arg(f32s(&[3]));
    let state = b.arg(TensorType::of(&[2], ElementType::UI64));
    let sum = b.add(x, x).unwrap();
    let less = b.compare(ComparisonDirection::Lt, sum, x).unwrap();
    let picked = b.select(less, sum, x).unwrap();
    let zero = b.splat(ElementType::F32, [], 0.0).unwrap();
    let reshaped = b.reshape(picked, [3, 2]).unwrap();
    let transposed = b.transpose(reshaped, &[1, 0]).unwrap();
    let _iota = b.iota(f32s(&[4]), 0).unwrap();
    let reduced = b
        .reduce_with(BinaryOp::Add, transposed, zero, &[1])
        .unwrap();
    let sorted = b
        .sort(&[x, sum], 1, true, |b, args| {
            Ok(vec![b.compare(
                ComparisonDirection::Lt,
                args[0],
                args[1],
            )?])
        })
        .unwrap();
    let norm = b
        .batch_norm_training(sorted[0], scale, scale, 1e-5, 1)
        .unwrap();
    let (_, _bits) = b
        .rng_bit_generator(
            state,
            RngAlgorithm::Default,
            f32s(&[2]).with_element(ElementType::UI32),
        )
        .unwrap();
    b.ret(&[reduced, norm[0]]).unwrap();
    let f = b.finish().unwrap();
    let mut seen = Vec::new();
    for id in f.walk() {
        let op = f.op(id);
        let opcode = op.kind.opcode();
        assert!(
            opcode.operands().admits(op.operands.len()),
            "{}",
            opcode.name()
        );
        assert!(
            opcode.results().admits(op.results.len()),
            "{}",
            opcode.name()
        );
        seen.push(opcode);
    }
    for expected in [
        OpKind::Reduce { dimensions: vec![] }.opcode(),
        Opcode::Sort,
        Opcode::BatchNormTraining,
        Opcode::RngBitGenerator,
        Opcode::Return,
        Opcode::RegionReturn,
    ] {
        assert!(seen.contains(&expected), "{}", expected.name());
    }
}

#[test]
fn the_builder_refuses_counts_the_table_does_not_declare() {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(TensorType::of(&[2], ElementType::F32));
    let error = b
        .op(OpKind::Reshape, &[x, x], Vec::new(), None)
        .unwrap_err();
    assert!(
        error.to_string().contains("expects 1 operand(s), got 2"),
        "{error}"
    );
    let error = b
        .op(
            OpKind::Convert,
            &[x],
            Vec::new(),
            Some(vec![x_type(), x_type()]),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("has 2 result(s), expected 1"),
        "{error}"
    );
}

fn x_type() -> crate::types::Type {
    TensorType::of(&[2], ElementType::F32).into()
}
