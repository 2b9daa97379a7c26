//! What the cache records of a built program: its canonical text (what keys hash) and its
//! signature (what runtimes bind).

use tpuc_cache::{Binding, ModuleRecord, Signature};
use tpuc_ir::{ArgumentRole, ResultRole};

use crate::middle::Built;

/// The canonical text and the signature of a lowered program.
pub fn module_record(built: &Built) -> ModuleRecord {
    let text = tpuc_ir::print::generic(&built.program.module, &tpuc_ir::PrintOptions::default());
    let binding = |kind: &str,
                   name: Option<&str>,
                   index: Option<usize>,
                   dtype: tpuc_pt2::DType,
                   shape: &[i64]| Binding {
        kind: kind.to_owned(),
        name: name.map(str::to_owned),
        index,
        dtype: dtype.torch_name().to_owned(),
        shape: shape.to_vec(),
        sharding: None,
    };
    let arguments = built
        .arguments
        .iter()
        .map(|arg| {
            let index = match &arg.role {
                ArgumentRole::Input { index, .. } => Some(*index),
                _ => None,
            };
            binding(
                arg.role.kind(),
                Some(arg.role.name()),
                index,
                arg.dtype,
                &arg.shape,
            )
        })
        .collect();
    let results = built
        .results
        .iter()
        .map(|result| {
            let index = match &result.role {
                ResultRole::Output { index } => Some(*index),
                _ => None,
            };
            let kind = result.role.kind();
            binding(kind, result.role.name(), index, result.dtype, &result.shape)
        })
        .collect();
    let mut signature = Signature {
        arguments,
        results,
        mesh: None,
        replicas: built
            .program
            .module
            .num_replicas
            .filter(|&n| n > 1)
            .map(u64::from),
    };
    record_shardings(&built.program.module, &mut signature);
    ModuleRecord {
        text,
        signature,
        dims: built.dims.clone(),
    }
}

/// Copies a sharded module's mesh and the `sdy.sharding` of `main`'s arguments and results
/// into the signature, for runtimes that place the slices.
fn record_shardings(module: &tpuc_ir::Module, signature: &mut Signature) {
    let (Some(mesh), Some(main)) = (module.meshes.first(), module.function("main")) else {
        return;
    };
    signature.mesh = Some(
        mesh.axes
            .iter()
            .map(|axis| tpuc_cache::MeshAxis {
                name: axis.name.clone(),
                size: axis.size,
            })
            .collect(),
    );
    let axes = |attrs: &tpuc_ir::NamedAttrs, rank: usize| match attrs.get("sdy.sharding") {
        Some(tpuc_ir::Attribute::Sharding(sharding)) => {
            sharding.dims.iter().map(|d| d.axes.clone()).collect()
        }
        _ => vec![Vec::new(); rank],
    };
    for (binding, attrs) in signature.arguments.iter_mut().zip(&main.arg_attrs) {
        binding.sharding = Some(axes(attrs, binding.shape.len()));
    }
    for (binding, attrs) in signature.results.iter_mut().zip(&main.result_attrs) {
        binding.sharding = Some(axes(attrs, binding.shape.len()));
    }
}
