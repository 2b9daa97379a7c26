//! Lowers every fixture of `testdata/models` (both the exported and the decomposed program) and
//! snapshots `main` as pretty StableHLO, with the argument and result bindings.

use std::fmt::Write;
use std::path::PathBuf;

use tpuc_expect::expect_file;
use tpuc_ir::{PrintOptions, print};
use tpuc_lower::{LowerOptions, Lowered, lower};
use tpuc_pt2::Archive;

/// The reviewed output `name`: `tests/snapshots/fixtures/NAME.txt` (`BLESS=1` rewrites it).
fn snapshot(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/snapshots/fixtures/{name}.txt"))
}

fn models_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/models")
}

pub fn lower_fixture(file: &str) -> Lowered {
    let archive = Archive::open(models_dir().join(file)).expect("fixture opens");
    match lower(&archive, &LowerOptions::default()) {
        Ok(lowered) => lowered,
        Err(error) => panic!("{file}: {:?}", miette::Report::new(error)),
    }
}

/// The snapshot text: the symbol values, then the program (its interface is in `main`'s
/// attributes).
fn render(lowered: &Lowered) -> String {
    let mut out = String::new();
    if !lowered.dims.is_empty() {
        let _ = writeln!(out, "// dims: {:?}", lowered.dims);
    }
    out.push_str(&print::pretty(
        &lowered.program.module,
        &PrintOptions::default(),
    ));
    out
}

/// Properties every lowering must have (see docs/ops.md): no f64 in a model without f64, no
/// identity reshapes or converts.
fn check_tight(name: &str, text: &str) {
    assert!(!text.contains("f64"), "{name}: f64 in the lowered module");
    for line in text.lines() {
        if let Some(types) = line.split(" : ").nth(1)
            && (line.contains("stablehlo.reshape") || line.contains("stablehlo.convert"))
            && let Some((from, to)) = types.split_once(" -> ")
        {
            assert_ne!(
                from.trim_start_matches('('),
                to.trim_end_matches(')'),
                "{name}: identity op: {line}"
            );
        }
    }
}

/// Every argument of `main` has a role, and names what it binds: the weight's FQN or the user
/// input's name (`jax.arg_info`, as JAX names arguments).
fn check_arg_names(lowered: &Lowered) {
    let interface = lowered
        .program
        .interface()
        .expect("the interface reads back");
    let main = lowered.program.main().unwrap();
    assert_eq!(main.arg_attrs.len(), interface.arguments.len());
    for (attrs, role) in main.arg_attrs.iter().zip(&interface.arguments) {
        assert!(
            attrs.get(tpuc_ir::program::attrs::ROLE).is_some(),
            "{role:?}"
        );
        assert_eq!(
            attrs.get(tpuc_ir::program::attrs::ARG_NAME),
            Some(&tpuc_ir::Attribute::String(role.name().to_owned())),
            "{role:?}"
        );
    }
}

macro_rules! fixtures {
    ($($test:ident => $file:literal),+ $(,)?) => {
        $(
            #[test]
            fn $test() {
                let lowered = lower_fixture($file);
                let text = render(&lowered);
                check_tight($file, &text);
                check_arg_names(&lowered);
                expect_file(snapshot(stringify!($test)), &text);
            }
        )+
    };
}

fixtures! {
    mlp => "mlp.pt2",
    mlp_core => "mlp.core.pt2",
    cnn => "cnn.pt2",
    cnn_core => "cnn.core.pt2",
    decoder => "decoder.pt2",
    decoder_core => "decoder.core.pt2",
    dyn_batch => "dyn_batch.pt2",
    dyn_batch_core => "dyn_batch.core.pt2",
    dyn_seq => "dyn_seq.pt2",
    dyn_seq_core => "dyn_seq.core.pt2",
    dyn_conv => "dyn_conv.pt2",
    dyn_conv_core => "dyn_conv.core.pt2",
    dyn_tokens => "dyn_tokens.pt2",
    dyn_tokens_core => "dyn_tokens.core.pt2",
    gpt2 => "gpt2.pt2",
    gpt2_core => "gpt2.core.pt2",
    bert => "bert.pt2",
    bert_core => "bert.core.pt2",
    collectives => "collectives.pt2",
    collectives_core => "collectives.core.pt2",
    llama => "llama.pt2",
    llama_core => "llama.core.pt2",
    resnet => "resnet.pt2",
    resnet_core => "resnet.core.pt2",
    vit => "vit.pt2",
    vit_core => "vit.core.pt2",
    misc => "misc.pt2",
    misc_core => "misc.core.pt2",
    quant_bf16 => "quant_bf16.pt2",
    quant_bf16_core => "quant_bf16.core.pt2",
    stateful => "stateful.pt2",
    stateful_core => "stateful.core.pt2",
    cond => "cond.pt2",
    cond_core => "cond.core.pt2",
    control => "control.pt2",
    control_core => "control.core.pt2",
    coverage => "coverage.pt2",
    coverage_core => "coverage.core.pt2",
    inplace => "inplace.pt2",
    inplace_core => "inplace.core.pt2",
    shape_ops => "shape_ops.pt2",
    shape_ops_core => "shape_ops.core.pt2",
    vision => "vision.pt2",
    vision_core => "vision.core.pt2",
    sequence => "sequence.pt2",
    sequence_core => "sequence.core.pt2",
    windows => "windows.pt2",
    windows_core => "windows.core.pt2",
    log_of_input => "log_of_input.pt2",
    log_of_input_core => "log_of_input.core.pt2",
    t5 => "t5.pt2",
    t5_core => "t5.core.pt2",
    bart => "bart.pt2",
    bart_core => "bart.core.pt2",
    bloom => "bloom.pt2",
    bloom_core => "bloom.core.pt2",
    falcon => "falcon.pt2",
    falcon_core => "falcon.core.pt2",
    gemma2 => "gemma2.pt2",
    gemma2_core => "gemma2.core.pt2",
    clip => "clip.pt2",
    clip_core => "clip.core.pt2",
    llama_bf16 => "llama_bf16.pt2",
    llama_bf16_core => "llama_bf16.core.pt2",
    llama_f16 => "llama_f16.pt2",
    llama_f16_core => "llama_f16.core.pt2",
    llama_int8 => "llama_int8.pt2",
    llama_int8_core => "llama_int8.core.pt2",
    densenet => "densenet.pt2",
    densenet_core => "densenet.core.pt2",
    shufflenet => "shufflenet.pt2",
    shufflenet_core => "shufflenet.core.pt2",
    unet => "unet.pt2",
    unet_core => "unet.core.pt2",
    wav2vec2 => "wav2vec2.pt2",
    wav2vec2_core => "wav2vec2.core.pt2",
    siglip => "siglip.pt2",
    siglip_core => "siglip.core.pt2",
}

#[test]
fn ops_carry_the_node_and_user_line() {
    let lowered = lower_fixture("mlp.pt2");
    let text = print::pretty(
        &lowered.program.module,
        &PrintOptions::with_locations(tpuc_ir::LocationStyle::Inline),
    );
    assert!(
        text.contains(r#"loc("linear"("testdata/generate.py":98:0))"#),
        "{text}"
    );
    assert!(
        text.contains(r#"loc("relu"("testdata/generate.py":98:0))"#),
        "{text}"
    );
}

#[test]
fn dims_are_specialised_and_checked_against_ranges() {
    let archive = Archive::open(models_dir().join("dyn_batch.pt2")).unwrap();
    let mut options = LowerOptions::default();
    options.dims.insert("s77".into(), 7);
    let lowered = lower(&archive, &options).unwrap();
    assert_eq!(lowered.dims["s77"], 7);
    let main = lowered.program.main().unwrap();
    assert_eq!(
        main.arg_types().last().unwrap().to_string(),
        "tensor<7x4x6xf32>"
    );

    options.dims.insert("s77".into(), 65);
    let error = lower(&archive, &options).unwrap_err().to_string();
    assert!(error.contains("outside the range [1, 64]"), "{error}");

    let mut options = LowerOptions::default();
    options.input_shapes.insert(0, vec![3, 4, 6]);
    assert_eq!(lower(&archive, &options).unwrap().dims["s77"], 3);
    options.input_shapes.insert(0, vec![3, 5, 6]);
    let error = lower(&archive, &options).unwrap_err().to_string();
    assert!(error.contains("static size 4"), "{error}");
}

#[test]
fn inlined_weights_become_constants() {
    let archive = Archive::open(models_dir().join("mlp.pt2")).unwrap();
    let options = LowerOptions {
        inline_weights: true,
        ..LowerOptions::default()
    };
    let lowered = lower(&archive, &options).unwrap();
    assert_eq!(lowered.program.main().unwrap().args().len(), 1);
    let text = print::pretty(&lowered.program.module, &PrintOptions::default());
    assert!(text.contains("stablehlo.constant dense<"), "{text}");
}

/// `mlp.pt2` with text of its program replaced in place (same length, so the zip stays valid;
/// its checksums are rewritten); every `from` must occur.
fn mlp_edited(name: &str, edits: &[(&str, &str)]) -> Archive {
    let mut bytes = std::fs::read(models_dir().join("mlp.pt2")).unwrap();
    let mut found = vec![0; edits.len()];
    tpuc_testkit::zip::edit_records(
        &mut bytes,
        |name| name.ends_with(".json"),
        |_, _, data| {
            for ((from, to), found) in edits.iter().zip(&mut found) {
                assert_eq!(from.len(), to.len(), "{from} -> {to}");
                let (from, to) = (from.as_bytes(), to.as_bytes());
                let mut i = 0;
                while i + from.len() <= data.len() {
                    if &data[i..i + from.len()] == from {
                        data[i..i + from.len()].copy_from_slice(to);
                        *found += 1;
                        i += from.len();
                    } else {
                        i += 1;
                    }
                }
            }
        },
    );
    assert!(found.iter().all(|&n| n > 0), "mlp.pt2 holds {edits:?}");
    Archive::from_bytes(name, bytes).expect("edited fixture opens")
}

/// `mlp.pt2` with its op targets renamed.
fn mlp_with_unknown_ops() -> Archive {
    mlp_edited(
        "mlp_unknown.pt2",
        &[
            ("torch.ops.aten.relu.default", "torch.ops.aten.relx.default"),
            (
                "torch.ops.aten.linear.default",
                "torch.ops.aten.lineax.default",
            ),
        ],
    )
}

#[test]
fn an_op_tpuc_does_not_lower_on_purpose_says_why() {
    let archive = mlp_edited(
        "mlp_rand.pt2",
        &[("torch.ops.aten.relu.default", "torch.ops.aten.rand.default")],
    );
    let message = lower(&archive, &LowerOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("tpuc does not lower `torch.ops.aten.rand.default` (node `relu`")
            && message.contains("torch's random generator")
            && message.contains("pass the random tensor as an input")
            && !message.contains("yet"),
        "{message}"
    );
    // The training dialect's `item` is core ATen's `_local_scalar_dense`, with its reason.
    let archive = mlp_edited(
        "mlp_item.pt2",
        &[("torch.ops.aten.relu.default", "torch.ops.aten.item.default")],
    );
    let message = lower(&archive, &LowerOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("`torch.ops.aten.item.default`")
            && message.contains("keep the value a tensor"),
        "{message}"
    );
}

#[test]
fn an_archive_that_disagrees_with_itself_is_named_and_lowered_where_its_outputs_agree() {
    // `relu` recorded as [8, 2] where it computes [2, 8]: the outputs still agree, so a warning.
    let relu = r#""relu": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 8}]"#;
    let archive = mlp_edited(
        "mlp_relu.pt2",
        &[(
            relu,
            &relu.replace("2}, {\"as_int\": 8", "8}, {\"as_int\": 2"),
        )],
    );
    let lowered = lower(&archive, &LowerOptions::default()).expect("the outputs agree");
    let [warning] = &lowered.warnings[..] else {
        panic!("{:?}", lowered.warnings);
    };
    assert!(
        warning.contains("the archive disagrees with itself: node `relu` (`torch.ops.aten.relu.default` at testdata/generate.py:")
            && warning.contains("computes tensor<2x8xf32> for `relu`, but the archive records tensor<8x2xf32>"),
        "{warning}"
    );
    assert!(lower_fixture("mlp.pt2").warnings.is_empty());

    // The output `linear_1` recorded as [3, 2]: an error naming the node and both types.
    let out = r#""linear_1": {"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}]"#;
    let archive = mlp_edited(
        "mlp_out.pt2",
        &[(
            out,
            &out.replace("2}, {\"as_int\": 3", "3}, {\"as_int\": 2"),
        )],
    );
    let error = lower(&archive, &LowerOptions::default()).unwrap_err();
    let message = format!(
        "{error} {:?}",
        miette::Diagnostic::help(&error).map(|h| h.to_string())
    );
    assert!(
        matches!(error, tpuc_lower::LowerError::InconsistentArchive { .. })
            && message.contains("node `linear_1`")
            && message.contains(
                "computes tensor<2x3xf32> for `linear_1`, but the archive records tensor<3x2xf32>"
            )
            && message.contains("is an output of the program")
            && !message.contains("bug in tpuc"),
        "{message}"
    );
}

#[test]
fn unsupported_ops_name_the_target_node_and_line() {
    let archive = mlp_with_unknown_ops();
    let error = lower(&archive, &LowerOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("`torch.ops.aten.lineax.default`"),
        "{message}"
    );
    assert!(message.contains("node `linear`"), "{message}");
    assert!(message.contains("testdata/generate.py:98"), "{message}");
    assert!(matches!(
        error,
        tpuc_lower::LowerError::UnsupportedOp { .. }
    ));

    let options = LowerOptions {
        keep_going: true,
        ..LowerOptions::default()
    };
    match lower(&archive, &options).unwrap_err() {
        tpuc_lower::LowerError::Many { errors } => {
            // One error per unknown target, in order of first appearance, naming its nodes.
            let targets: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            assert_eq!(errors.len(), 2, "{targets:#?}");
            assert!(
                targets[0].contains("`torch.ops.aten.lineax.default` yet: 2 node(s): `linear`, `linear_1`, first at testdata/generate.py:98"),
                "{targets:#?}"
            );
            assert!(targets[1].contains("relx"), "{targets:#?}");
            assert!(matches!(
                errors[1],
                tpuc_lower::LowerError::UnsupportedOp { .. }
            ));
        }
        other => panic!("expected every unsupported op, got {other}"),
    }
}

#[test]
fn int4_weights_held_in_int8_are_passed_as_int4() {
    let archive = Archive::open(models_dir().join("torchao_weights.pt2")).expect("fixture");
    let lowered = lower(&archive, &LowerOptions::default()).expect("fixture lowers");
    let interface = lowered.program.interface().expect("interface");
    let main = lowered.program.main().expect("main");
    let passed: std::collections::BTreeMap<&str, String> = interface
        .arguments
        .iter()
        .zip(main.arg_types())
        .filter(|(role, _)| role.name().ends_with(".qdata"))
        .map(|(role, ty)| {
            (
                role.name(),
                ty.as_tensor().expect("a tensor").element.to_string(),
            )
        })
        .collect();
    let expected = [
        ("embed.weight.qdata", "i4"),
        ("float8.weight.qdata", "f8E4M3FN"),
        ("int4.weight.qdata", "i4"),
        ("int8.weight.qdata", "i8"),
        ("int8_group.weight.qdata", "i8"),
    ];
    let expected = expected.map(|(fqn, ty)| (fqn, ty.to_owned()));
    assert_eq!(passed, std::collections::BTreeMap::from(expected));
    // Inlined, the weights stay as stored.
    let options = LowerOptions {
        inline_weights: true,
        ..LowerOptions::default()
    };
    let inlined = render(&lower(&archive, &options).expect("fixture lowers"));
    assert!(!inlined.contains("xi4>"), "{inlined}");
}

#[test]
fn tied_weights_are_passed_once() {
    // Two names for one tensor (same storage, offset, sizes and strides) bind one argument;
    // views of a storage that differ in layout stay separate arguments.
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(models_dir().join("../manifest.json")).expect("manifest"),
    )
    .expect("manifest parses");
    let mut tied_pairs = 0;
    for (name, model) in manifest["models"].as_object().expect("models") {
        for file in ["pt2", "core"] {
            let file = model["files"][file]
                .as_str()
                .expect("file")
                .trim_start_matches("models/");
            let archive = Archive::open(models_dir().join(file)).expect("fixture opens");
            // Lowering runs no passes, so pruning unused arguments cannot hide a second binding.
            let lowered = lower(&archive, &LowerOptions::default()).expect("fixture lowers");
            let interface = lowered
                .program
                .interface()
                .expect("the interface reads back");
            let mut layouts = std::collections::HashMap::new();
            for fqn in interface
                .arguments
                .iter()
                .filter(|role| role.is_weight())
                .map(tpuc_ir::ArgumentRole::name)
            {
                let w = archive
                    .weight(fqn)
                    .expect("a bound weight is in the archive");
                let layout = (
                    w.storage_entry().to_owned(),
                    w.storage_offset(),
                    w.sizes().to_vec(),
                    w.strides().to_vec(),
                );
                if let Some(other) = layouts.insert(layout, fqn) {
                    panic!("{name} ({file}): `{other}` and `{fqn}` are one tensor passed twice");
                }
            }
            let bound = interface.arguments.len();
            let tied: usize = model["tied"]
                .as_array()
                .expect("tied")
                .iter()
                .filter(|group| {
                    let fqns: Vec<&str> = group
                        .as_array()
                        .expect("group")
                        .iter()
                        .filter_map(|f| f.as_str())
                        .collect();
                    fqns.iter()
                        .filter_map(|f| archive.weight(f))
                        .map(|w| (w.storage_offset(), w.sizes().to_vec(), w.strides().to_vec()))
                        .collect::<std::collections::HashSet<_>>()
                        .len()
                        == 1
                })
                .count();
            tied_pairs += tied;
            assert!(bound > 0, "{name} ({file}) binds its arguments");
        }
    }
    // decoder, dyn_seq and gpt2 tie an LM head to the embedding, in both dialects.
    assert!(tied_pairs >= 6, "only {tied_pairs} tied groups checked");
}
