//! `op_rule` gives a rule for every op whose table entry declares one.

use tpuc_ir::{
    BinaryOp, ComparisonDirection, DotDims, ElementType, FftType, FunctionBuilder,
    ShardingRuleKind, TensorType, Visibility,
};

use super::op_rule;

#[test]
fn every_op_declaring_a_rule_gets_one() {
    let f32s = |shape: &[u64]| TensorType::of(shape, ElementType::F32);
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[4, 6]));
    let y = b.arg(f32s(&[6, 4]));
    let sum = b.add(x, x).unwrap();
    let zero = b.splat(ElementType::F32, [], 0.0).unwrap();
    b.compare(ComparisonDirection::Lt, x, sum).unwrap();
    b.broadcast_in_dim(zero, &[], [4, 6]).unwrap();
    let reshaped = b.reshape(sum, [6, 4]).unwrap();
    b.transpose(reshaped, &[1, 0]).unwrap();
    b.slice(x, &[0, 0], &[2, 6], &[1, 1]).unwrap();
    b.pad(x, zero, &[1, 0], &[0, 1], &[0, 0]).unwrap();
    b.concatenate(&[x, sum], 0).unwrap();
    b.reverse(x, &[1]).unwrap();
    b.dot_general(x, y, DotDims::contracting(1, 0), Vec::new())
        .unwrap();
    b.reduce_with(BinaryOp::Add, x, zero, &[1]).unwrap();
    b.sort(&[x], 1, true, |b, args| {
        Ok(vec![b.compare(
            ComparisonDirection::Lt,
            args[0],
            args[1],
        )?])
    })
    .unwrap();
    b.optimization_barrier(&[x]).unwrap();
    b.fft(x, FftType::Rfft, &[6]).unwrap();
    b.ret(&[x]).unwrap();
    let f = b.finish().unwrap();
    let mut ruled = Vec::new();
    for &op in &f.block(f.entry_block()).ops {
        let opcode = f.op(op).kind.opcode();
        let declared = opcode.sharding_rule();
        let rule = op_rule(&f, op);
        assert_eq!(
            rule.is_some(),
            declared != ShardingRuleKind::None,
            "{}: declared {declared:?}",
            opcode.name()
        );
        ruled.push(declared);
    }
    for kind in [
        ShardingRuleKind::Elementwise,
        ShardingRuleKind::BroadcastInDim,
        ShardingRuleKind::Reshape,
        ShardingRuleKind::Transpose,
        ShardingRuleKind::Window,
        ShardingRuleKind::Concatenate,
        ShardingRuleKind::Reverse,
        ShardingRuleKind::DotGeneral,
        ShardingRuleKind::Reduce,
        ShardingRuleKind::Sort,
        ShardingRuleKind::Fft,
        ShardingRuleKind::Pairwise,
        ShardingRuleKind::None,
    ] {
        assert!(ruled.contains(&kind), "no sample op for {kind:?}");
    }
}

/// `fft` lets its leading (batch) dimensions shard and keeps every transformed one whole, the
/// operand's and the result's apart when RFFT halves the last.
#[test]
fn fft_shards_only_the_batch_dimensions() {
    use crate::sharding::rule::FactorKind;

    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(TensorType::of(&[4, 3, 8], ElementType::F32));
    let y = b.fft(x, FftType::Rfft, &[3, 8]).unwrap();
    b.ret(&[y]).unwrap();
    let f = b.finish().unwrap();
    let fft = f.block(f.entry_block()).ops[0];
    let rule = op_rule(&f, fft).expect("fft has a rule");
    let kinds: Vec<(u64, FactorKind)> = rule.factors.iter().map(|f| (f.size, f.kind)).collect();
    assert_eq!(
        kinds,
        [
            (4, FactorKind::PassThrough),
            (3, FactorKind::NeedReplication),
            (8, FactorKind::NeedReplication),
            (5, FactorKind::NeedReplication),
        ]
    );
    assert_eq!(rule.operands, [vec![vec![0], vec![1], vec![2]]]);
    assert_eq!(rule.results, [vec![vec![0], vec![1], vec![3]]]);
}
