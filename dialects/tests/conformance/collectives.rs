//! Collectives on a 2-device XLA:CPU client: every device runs the module on its own inputs.

use super::support::*;
use tpuc_ir::{
    Attribute, BinaryOp, CollectiveAttrs, DimSharding, ElementType, FunctionBuilder, Mesh,
    MeshAxis, Module, NamedAttrs, Result, TensorSharding, TensorType, Visibility,
};

/// XLA refuses `partition_id` once the SPMD partitioner runs: lowering must not emit it there.
const PARTITION_ID_IS_AMBIGUOUS: &str =
    "PartitionId instruction is not supported for SPMD partitioning";

fn both_devices() -> CollectiveAttrs {
    CollectiveAttrs {
        replica_groups: vec![vec![0, 1]],
        channel: None,
        use_global_device_ids: false,
    }
}

/// `@main` doubles an `[4, 2]` array sharded by rows over the mesh axis `x` (2 partitions)
/// and constrains the result to be replicated.
fn sharded_module() -> Result<Module> {
    let sharding = |rows: &[&str]| TensorSharding {
        mesh: "mesh".to_string(),
        dims: vec![
            DimSharding {
                axes: rows.iter().map(ToString::to_string).collect(),
                ..DimSharding::default()
            },
            DimSharding::default(),
        ],
        replicated: Vec::new(),
    };
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg_with_attrs(
        TensorType::of(&[4, 2], ElementType::F32),
        NamedAttrs::new().with("sdy.sharding", Attribute::Sharding(sharding(&["x"]))),
    );
    let doubled = b.add(x, x)?;
    let replicated = b.sharding_constraint(doubled, sharding(&[]))?;
    b.ret_with_attrs(
        &[replicated],
        vec![NamedAttrs::new().with("sdy.sharding", Attribute::Sharding(sharding(&[])))],
    )?;
    let mut module = Module::new();
    module.meshes.push(Mesh {
        name: "mesh".to_string(),
        axes: vec![MeshAxis {
            name: "x".to_string(),
            size: 2,
        }],
    });
    module.add_function(b.finish()?)?;
    Ok(module)
}

/// Each case runs as two replicas on XLA:CPU; libtpu compiles the same module with the same
/// two-device assignment onto two of the topology's four chips.
pub fn cases() -> Vec<Case> {
    vec![
        Case::replicated(
            "all_reduce sum",
            vec![
                vec![f32s(&[2], &[1.0, 2.0])],
                vec![f32s(&[2], &[10.0, 20.0])],
            ],
            vec![
                vec![exact(f32s(&[2], &[11.0, 22.0]))],
                vec![exact(f32s(&[2], &[11.0, 22.0]))],
            ],
            |b, a| b.all_reduce(&[a[0]], both_devices(), |b, v| Ok(vec![b.add(v[0], v[1])?])),
        ),
        Case::replicated(
            "all_reduce max of two operands (one computation applied to each)",
            vec![
                vec![i32s(&[2], &[1, 9]), i32s(&[1], &[-1])],
                vec![i32s(&[2], &[5, -3]), i32s(&[1], &[4])],
            ],
            vec![
                vec![exact(i32s(&[2], &[5, 9])), exact(i32s(&[1], &[4]))],
                vec![exact(i32s(&[2], &[5, 9])), exact(i32s(&[1], &[4]))],
            ],
            |b, a| {
                b.all_reduce(&[a[0], a[1]], both_devices(), |b, v| {
                    Ok(vec![b.binary(BinaryOp::Maximum, v[0], v[1])?])
                })
            },
        ),
        Case::replicated(
            "all_gather along dimension 1",
            vec![vec![i32s(&[2, 1], &[1, 2])], vec![i32s(&[2, 1], &[3, 4])]],
            vec![
                vec![exact(i32s(&[2, 2], &[1, 3, 2, 4]))],
                vec![exact(i32s(&[2, 2], &[1, 3, 2, 4]))],
            ],
            |b, a| Ok(vec![b.all_gather(a[0], 1, both_devices())?]),
        ),
        Case::replicated(
            "reduce_scatter sum",
            vec![
                vec![f32s(&[4], &[1.0, 2.0, 3.0, 4.0])],
                vec![f32s(&[4], &[10.0, 20.0, 30.0, 40.0])],
            ],
            vec![
                vec![exact(f32s(&[2], &[11.0, 22.0]))],
                vec![exact(f32s(&[2], &[33.0, 44.0]))],
            ],
            |b, a| {
                Ok(vec![b.reduce_scatter(
                    a[0],
                    0,
                    both_devices(),
                    |b, v| Ok(vec![b.add(v[0], v[1])?]),
                )?])
            },
        ),
        Case::replicated(
            "all_to_all (split and concatenate along dimension 0)",
            vec![
                vec![i32s(&[2, 2], &[1, 2, 3, 4])],
                vec![i32s(&[2, 2], &[5, 6, 7, 8])],
            ],
            vec![
                vec![exact(i32s(&[2, 2], &[1, 2, 5, 6]))],
                vec![exact(i32s(&[2, 2], &[3, 4, 7, 8]))],
            ],
            |b, a| Ok(vec![b.all_to_all(a[0], 0, 0, 2, vec![vec![0, 1]], None)?]),
        ),
        Case::replicated(
            "all_to_all (split dimension 1, concatenate dimension 0)",
            vec![
                vec![i32s(&[2, 2], &[1, 2, 3, 4])],
                vec![i32s(&[2, 2], &[5, 6, 7, 8])],
            ],
            vec![
                vec![exact(i32s(&[4, 1], &[1, 3, 5, 7]))],
                vec![exact(i32s(&[4, 1], &[2, 4, 6, 8]))],
            ],
            |b, a| Ok(vec![b.all_to_all(a[0], 1, 0, 2, vec![vec![0, 1]], None)?]),
        ),
        Case::replicated(
            "collective_broadcast (neither plugin implements it yet)",
            vec![vec![f32s(&[2], &[1.0, 2.0])], vec![f32s(&[2], &[3.0, 4.0])]],
            vec![
                vec![exact(f32s(&[2], &[1.0, 2.0]))],
                vec![exact(f32s(&[2], &[1.0, 2.0]))],
            ],
            |b, a| {
                let kind = tpuc_ir::OpKind::CollectiveBroadcast {
                    replica_groups: vec![vec![0, 1]],
                    channel: None,
                    has_dynamic_root: false,
                };
                b.op(kind, &[a[0]], Vec::new(), None)
            },
        )
        .cpu_rejects("`collective-broadcast` is not supported by XLA:CPU")
        .tpu(Tpu::Rejects(
            "collective-broadcast is not implemented on TPU",
        )),
        Case::replicated(
            "collective_permute (swap)",
            vec![vec![f32s(&[2], &[1.0, 2.0])], vec![f32s(&[2], &[3.0, 4.0])]],
            vec![
                vec![exact(f32s(&[2], &[3.0, 4.0]))],
                vec![exact(f32s(&[2], &[1.0, 2.0]))],
            ],
            |b, a| {
                Ok(vec![b.collective_permute(
                    a[0],
                    vec![(0, 1), (1, 0)],
                    None,
                )?])
            },
        ),
        Case::replicated(
            "collective_permute (a device no one sends to gets zeros)",
            vec![vec![f32s(&[2], &[1.0, 2.0])], vec![f32s(&[2], &[3.0, 4.0])]],
            vec![
                vec![exact(f32s(&[2], &[0.0, 0.0]))],
                vec![exact(f32s(&[2], &[1.0, 2.0]))],
            ],
            |b, a| Ok(vec![b.collective_permute(a[0], vec![(0, 1)], None)?]),
        ),
        Case::replicated(
            "replica_id",
            vec![Vec::new(), Vec::new()],
            vec![vec![exact(u32s(&[], &[0]))], vec![exact(u32s(&[], &[1]))]],
            |b, _| Ok(vec![b.replica_id()?]),
        ),
        Case::replicated(
            "partition_id (one partition per replica: 0 everywhere)",
            vec![Vec::new(), Vec::new()],
            vec![vec![exact(u32s(&[], &[0]))], vec![exact(u32s(&[], &[0]))]],
            |b, _| Ok(vec![b.partition_id()?]),
        ),
        Case::partitioned(
            "sharding_constraint (Shardy: each partition gets its row shard, returns the whole)",
            sharded_module(),
            vec![
                vec![f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0])],
                vec![f32s(&[2, 2], &[5.0, 6.0, 7.0, 8.0])],
            ],
            vec![
                vec![exact(f32s(
                    &[4, 2],
                    &[2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0],
                ))],
                vec![exact(f32s(
                    &[4, 2],
                    &[2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0],
                ))],
            ],
        ),
        Case::partitioned(
            "partition_id under SPMD partitioning (rejected by XLA)",
            main_module("partition_id", &[], |b, _| Ok(vec![b.partition_id()?])),
            vec![Vec::new(), Vec::new()],
            vec![Vec::new(), Vec::new()],
        )
        .cpu_rejects(PARTITION_ID_IS_AMBIGUOUS)
        .tpu(Tpu::Rejects(PARTITION_ID_IS_AMBIGUOUS)),
    ]
}
