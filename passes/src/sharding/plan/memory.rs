//! A per-device memory estimate from a sharded module's annotations: the bytes of each
//! argument's shard (weights and inputs) and of every op result's shard in `main` (an upper
//! bound on activations: XLA frees and fuses many of them).

use serde::Serialize;
use tpuc_ir::{Attribute, Module, TensorSharding, TensorType, Type};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemoryEstimate {
    pub devices: u64,
    /// Whole weights (parameters, buffers, constants passed as arguments).
    pub weight_bytes: u64,
    /// What one device holds of them.
    pub weight_bytes_per_device: u64,
    pub input_bytes: u64,
    pub input_bytes_per_device: u64,
    /// Every op result of `main`, summed.
    pub activation_bytes: u64,
    pub activation_bytes_per_device: u64,
    /// The largest single op result per device.
    pub largest_activation_bytes_per_device: u64,
}

impl MemoryEstimate {
    /// The estimate with `is_weight[i]` saying whether argument `i` is a weight (else an
    /// input); arguments past the list count as weights.
    pub fn of(module: &Module, is_weight: &[bool]) -> MemoryEstimate {
        let mut estimate = MemoryEstimate {
            devices: module
                .meshes
                .first()
                .map_or(1, |m| m.axes.iter().map(|a| a.size).product()),
            ..MemoryEstimate::default()
        };
        let Some(main) = module.function("main") else {
            return estimate;
        };
        let shards = |sharding: Option<&Attribute>, index: usize| -> u64 {
            let sharding: Option<&TensorSharding> = match sharding {
                Some(Attribute::Sharding(s)) => Some(s),
                Some(Attribute::ShardingPerValue(s)) => s.get(index),
                _ => None,
            };
            sharding.map_or(1, |s| {
                s.dims
                    .iter()
                    .flat_map(|d| &d.axes)
                    .map(|axis| {
                        module
                            .meshes
                            .iter()
                            .flat_map(|m| &m.axes)
                            .find(|a| &a.name == axis)
                            .map_or(1, |a| a.size)
                    })
                    .product()
            })
        };
        for (index, ty) in main.arg_types().iter().enumerate() {
            let bytes = type_bytes(ty);
            let per_device = bytes / shards(main.arg_attrs[index].get("sdy.sharding"), 0);
            if is_weight.get(index).copied().unwrap_or(true) {
                estimate.weight_bytes += bytes;
                estimate.weight_bytes_per_device += per_device;
            } else {
                estimate.input_bytes += bytes;
                estimate.input_bytes_per_device += per_device;
            }
        }
        for &op in &main.block(main.entry_block()).ops {
            let data = main.op(op);
            for (index, &result) in data.results.iter().enumerate() {
                let bytes = type_bytes(main.value_type(result));
                let per_device = bytes / shards(data.attrs.get("sdy.sharding"), index);
                estimate.activation_bytes += bytes;
                estimate.activation_bytes_per_device += per_device;
                estimate.largest_activation_bytes_per_device =
                    estimate.largest_activation_bytes_per_device.max(per_device);
            }
        }
        estimate
    }
}

fn type_bytes(ty: &Type) -> u64 {
    ty.as_tensor().map_or(0, tensor_bytes)
}

fn tensor_bytes(ty: &TensorType) -> u64 {
    ty.num_elements().unwrap_or(0) * ty.element.storage_bytes() as u64
}
