//! Running SPMD programs on several XLA:CPU devices: arguments cut into each device's block as
//! `main`'s `sdy.sharding` attributes say, results put back together, outputs equal to eager
//! PyTorch and to the one-device run. The shardings are written by hand here, so this checks
//! placement alone, whatever plan produced them.

use std::path::PathBuf;

use tpuc_driver::{ArgumentRole, Input, Options, Prepared, Runtime, Tolerance, compare, prepare};
use tpuc_ir::{Attribute, DimSharding, Mesh, MeshAxis, Module, TensorSharding};
use tpuc_npy::Array;

fn models() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/models")
}

fn prepared(name: &str) -> Prepared {
    let input = Input::read(models().join(format!("{name}.in0.npy"))).unwrap();
    prepare(
        &models().join(format!("{name}.pt2")),
        &[input],
        &Options::default(),
    )
    .unwrap()
}

fn sharding(dims: &[&[&str]]) -> Attribute {
    Attribute::Sharding(TensorSharding {
        mesh: "mesh".to_owned(),
        dims: dims
            .iter()
            .map(|axes| DimSharding {
                axes: axes.iter().map(|&a| a.to_owned()).collect(),
                is_open: false,
                priority: None,
            })
            .collect(),
        replicated: Vec::new(),
    })
}

/// Declares `mesh` and gives every argument and result of `main` a closed sharding:
/// `shard(binding source, rank)` for arguments, `result(rank)` for results.
fn annotate(
    prepared: &mut Prepared,
    axes: &[(&str, u64)],
    shard: impl Fn(&ArgumentRole, usize) -> Vec<&'static [&'static str]>,
    result: impl Fn(usize) -> Vec<&'static [&'static str]>,
) {
    let built = &mut prepared.built;
    let module: &mut Module = &mut built.program.module;
    module.meshes = vec![Mesh {
        name: "mesh".to_owned(),
        axes: axes
            .iter()
            .map(|&(name, size)| MeshAxis {
                name: name.to_owned(),
                size,
            })
            .collect(),
    }];
    module.num_partitions = Some(axes.iter().map(|&(_, s)| s as u32).product());
    let main = module.function_mut("main").unwrap();
    for (attrs, binding) in main.arg_attrs.iter_mut().zip(&built.arguments) {
        attrs.set(
            "sdy.sharding",
            sharding(&shard(&binding.role, binding.shape.len())),
        );
    }
    for (attrs, binding) in main.result_attrs.iter_mut().zip(&built.results) {
        attrs.set("sdy.sharding", sharding(&result(binding.shape.len())));
    }
}

fn replicated(rank: usize) -> Vec<&'static [&'static str]> {
    vec![&[]; rank]
}

fn fqn(role: &ArgumentRole) -> &str {
    role.name()
}

fn assert_matches_eager(name: &str, prepared: &Prepared, devices: usize) {
    let runtime = Runtime::cpu_devices(None, devices).unwrap();
    let executable = runtime
        .compile_module(&prepared.built.program.module)
        .unwrap();
    let run = prepared.execute_with(&executable).unwrap();
    let want = Array::read(models().join(format!("{name}.out0.npy"))).unwrap();
    let got = run.outputs[0].to_npy().unwrap();
    let tolerance = Tolerance {
        rtol: 1e-4,
        atol: 1e-4,
    };
    let comparison = compare(&got, &want, tolerance);
    assert!(
        comparison.passed(),
        "{name} on {devices} devices: {comparison:?}"
    );
}

/// Llama on a 2x2 mesh: the batch over `dp`; attention and MLP projections split over `tp`
/// by output features (q/k/v, gate/up) and input features (o, down); logits batch-sharded.
#[test]
fn llama_on_a_2x2_mesh_matches_eager() {
    tpuc_expect::skip_without!(CpuPlugin);
    let mut prepared = prepared("llama");
    annotate(
        &mut prepared,
        &[("dp", 2), ("tp", 2)],
        |source, rank| {
            let name = fqn(source);
            let column = ["q_proj", "k_proj", "v_proj", "gate_proj", "up_proj"];
            let row = ["o_proj", "down_proj"];
            if name == "input_ids" {
                vec![&["dp"], &[]]
            } else if column.iter().any(|c| name.contains(c)) {
                vec![&["tp"], &[]]
            } else if row.iter().any(|r| name.contains(r)) {
                vec![&[], &["tp"]]
            } else {
                replicated(rank)
            }
        },
        |rank| {
            let mut dims = replicated(rank);
            dims[0] = &["dp"];
            dims
        },
    );
    assert_matches_eager("llama", &prepared, 4);
}

/// Two axes on one dimension (`["dp", "tp"]`, major to minor): the batch of 4 over all four
/// devices, everything else replicated.
#[test]
fn a_dimension_over_two_axes_matches_eager() {
    tpuc_expect::skip_without!(CpuPlugin);
    let mut prepared = prepared("llama");
    annotate(
        &mut prepared,
        &[("dp", 2), ("tp", 2)],
        |source, rank| {
            if fqn(source) == "input_ids" {
                vec![&["tp", "dp"], &[]]
            } else {
                replicated(rank)
            }
        },
        |rank| {
            let mut dims = replicated(rank);
            dims[0] = &["tp", "dp"];
            dims
        },
    );
    assert_matches_eager("llama", &prepared, 4);
}

#[test]
fn the_one_device_run_matches_eager() {
    tpuc_expect::skip_without!(CpuPlugin);
    assert_matches_eager("llama", &prepared("llama"), 1);
}

#[test]
fn an_executable_for_fewer_devices_than_the_mesh_is_refused() {
    tpuc_expect::skip_without!(CpuPlugin);
    let mut prepared = prepared("mlp");
    annotate(
        &mut prepared,
        &[("x", 2)],
        |_, rank| replicated(rank),
        replicated,
    );
    let runtime = Runtime::cpu(None).unwrap();
    let mut one_device = prepared.built.program.module.clone();
    one_device.meshes.clear();
    one_device.num_partitions = None;
    for attrs in &mut one_device.function_mut("main").unwrap().arg_attrs {
        *attrs = Default::default();
    }
    for attrs in &mut one_device.function_mut("main").unwrap().result_attrs {
        *attrs = Default::default();
    }
    let executable = runtime.compile_module(&one_device).unwrap();
    let error = prepared.execute_with(&executable).unwrap_err();
    assert!(error.to_string().contains("runs on 1 device"), "{error}");
}
