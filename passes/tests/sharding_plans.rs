//! Plans applied to small modules: what each preset decides, what plan files express, and the
//! diagnostic of every kind of plan that cannot apply.

use tpuc_ir::{ArgumentRole, Attribute, Interface, Module, Program, ResultRole};
use tpuc_passes::sharding::{MeshSpec, PlanError, PlanFile, PlanSource, Preset, ShardRequest};
use tpuc_passes::{PassError, PassName, PipelineSpec, RunOptions, Stage};

/// A two-layer MLP with a bias: `l2(tanh(l1(x) + b))`, weights in torch's `[out, in]` layout.
const MLP: &str = r#"
func.func public @main(%w1: tensor<32x16xf32>, %b1: tensor<32xf32>, %w2: tensor<16x32xf32>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  %1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
  %2 = stablehlo.add %0, %1 : tensor<8x32xf32>
  %3 = stablehlo.tanh %2 : tensor<8x32xf32>
  %4 = stablehlo.dot_general %3, %w2, contracting_dims = [1] x [1] : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
  return %4 : tensor<8x16xf32>
}
"#;

fn roles() -> Vec<ArgumentRole> {
    let weight = |fqn: &str| ArgumentRole::Parameter {
        fqn: fqn.to_owned(),
    };
    vec![
        weight("l1.weight"),
        weight("l1.bias"),
        weight("l2.weight"),
        ArgumentRole::Input {
            index: 0,
            name: "x".to_owned(),
        },
    ]
}

fn request(plan: PlanSource, mesh: Option<&str>, devices: u64) -> ShardRequest {
    ShardRequest::new(plan, mesh.map(|m| m.parse().unwrap())).for_devices(devices)
}

fn plan(text: &str) -> PlanSource {
    PlanSource::File(PlanFile::parse("plan.toml", text).unwrap())
}

fn apply(text: &str, request: &ShardRequest) -> Result<Module, PlanError> {
    let module = tpuc_ir::parse::parse_module(text).unwrap();
    let interface = Interface {
        arguments: roles(),
        results: vec![ResultRole::Output { index: 0 }],
        aliases: Vec::new(),
    };
    let mut program = Program::new(module, &interface).unwrap();
    let spec = PipelineSpec {
        stages: vec![
            Stage::Shard(request.clone()),
            Stage::Pass(PassName::ShardingPropagate),
        ],
    };
    match spec.run(&mut program, &RunOptions::default()) {
        Ok(_) => {}
        Err(PassError::Plan(error)) => return Err(*error),
        Err(other) => panic!("{other:?}"),
    }
    tpuc_ir::verify(&program.module).unwrap();
    Ok(program.module)
}

/// Per argument of main, its sharding as `[["tp"], []]`-style text.
fn argument_shardings(module: &Module) -> Vec<String> {
    let main = module.function("main").unwrap();
    main.arg_attrs
        .iter()
        .map(|attrs| match attrs.get("sdy.sharding") {
            Some(Attribute::Sharding(s)) => {
                let dims: Vec<String> = s.dims.iter().map(|d| format!("{:?}", d.axes)).collect();
                format!("[{}]", dims.join(", "))
            }
            other => panic!("argument without a sharding: {other:?}"),
        })
        .collect()
}

#[test]
fn presets_shard_what_they_promise() {
    let cases: &[(Preset, Option<&str>, u64, [&str; 4])] = &[
        // dp: the batch split, weights whole.
        (
            Preset::Dp,
            None,
            2,
            ["[[], []]", "[[]]", "[[], []]", "[[\"dp\"], []]"],
        ),
        // fsdp: each weight split once over dp as well, on the dimension that fills tiles.
        (
            Preset::Fsdp,
            None,
            2,
            [
                "[[], [\"dp\"]]",
                "[[\"dp\"]]",
                "[[\"dp\"], []]",
                "[[\"dp\"], []]",
            ],
        ),
        // tp: l1 column-split (and its bias follows), l2 row-split, the input whole.
        (
            Preset::Tp,
            None,
            4,
            ["[[\"tp\"], []]", "[[\"tp\"]]", "[[], [\"tp\"]]", "[[], []]"],
        ),
        (
            Preset::DpTp,
            Some("dp=2,tp=2"),
            4,
            [
                "[[\"tp\"], []]",
                "[[\"tp\"]]",
                "[[], [\"tp\"]]",
                "[[\"dp\"], []]",
            ],
        ),
        (
            Preset::FsdpTp,
            Some("dp=2,tp=2"),
            4,
            [
                "[[\"tp\"], [\"dp\"]]",
                "[[\"tp\"]]",
                "[[\"dp\"], [\"tp\"]]",
                "[[\"dp\"], []]",
            ],
        ),
    ];
    for (preset, mesh, devices, expected) in cases {
        let module = apply(MLP, &request(PlanSource::Preset(*preset), *mesh, *devices)).unwrap();
        assert_eq!(argument_shardings(&module), expected, "{preset}");
        assert_eq!(module.num_partitions, Some(*devices as u32), "{preset}");
        assert_eq!(module.meshes.len(), 1);
    }
}

#[test]
fn tp_keeps_heads_whole() {
    // q: [64] = 4 heads x 16 columns split 4 ways flows onto the heads; k: [32] = 2 heads
    // cannot split 4 ways without cutting a head, so k's projection stays whole, and the
    // output projection (fed by the split heads through the attention) is row-split.
    let attention = r#"
func.func public @main(%wq: tensor<64x64xf32>, %wk: tensor<32x64xf32>, %wo: tensor<64x64xf32>, %x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %q = stablehlo.dot_general %x, %wq, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %k = stablehlo.dot_general %x, %wk, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %qh = stablehlo.reshape %q : (tensor<16x64xf32>) -> tensor<16x4x16xf32>
  %kh = stablehlo.reshape %k : (tensor<16x32xf32>) -> tensor<16x2x16xf32>
  %kb = stablehlo.broadcast_in_dim %kh, dims = [0, 1, 3] : (tensor<16x2x16xf32>) -> tensor<16x2x2x16xf32>
  %kr = stablehlo.reshape %kb : (tensor<16x2x2x16xf32>) -> tensor<16x4x16xf32>
  %s = stablehlo.dot_general %qh, %kr, batching_dims = [1] x [1], contracting_dims = [2] x [2] : (tensor<16x4x16xf32>, tensor<16x4x16xf32>) -> tensor<4x16x16xf32>
  %v = stablehlo.dot_general %s, %qh, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<4x16x16xf32>, tensor<16x4x16xf32>) -> tensor<4x16x16xf32>
  %t = stablehlo.transpose %v, dims = [1, 0, 2] : (tensor<4x16x16xf32>) -> tensor<16x4x16xf32>
  %m = stablehlo.reshape %t : (tensor<16x4x16xf32>) -> tensor<16x64xf32>
  %o = stablehlo.dot_general %m, %wo, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  return %o : tensor<16x64xf32>
}
"#;
    let module = apply(attention, &request(PlanSource::Preset(Preset::Tp), None, 4)).unwrap();
    assert_eq!(
        argument_shardings(&module),
        ["[[\"tp\"], []]", "[[], []]", "[[], [\"tp\"]]", "[[], []]"]
    );
}

#[test]
fn plan_files_express_rules_placements_inputs_and_outputs() {
    let file = plan(
        r#"
mesh = "dp=2,tp=2"
[parameters]
"l1.*" = "open"
"l2.weight" = { placements = ["Replicate()", "Shard(1)"] }
[inputs]
x = [["dp"], "?"]
[outputs]
0 = [["dp"], []]
"#,
    );
    let module = apply(MLP, &request(file, None, 4)).unwrap();
    // l2 is split on its input features; propagating back from there, l1's open weight and
    // bias split on its output features; the output is pinned.
    assert_eq!(
        argument_shardings(&module),
        [
            "[[\"tp\"], []]",
            "[[\"tp\"]]",
            "[[], [\"tp\"]]",
            "[[\"dp\"], []]"
        ]
    );
    let main = module.function("main").unwrap();
    let Some(Attribute::Sharding(out)) = main.result_attrs[0].get("sdy.sharding") else {
        panic!("the output has no sharding")
    };
    assert_eq!(out.dims[0].axes, ["dp"]);
    assert!(out.dims[1].axes.is_empty());
}

/// Every kind of plan that cannot apply, with what its message must name.
#[test]
fn plans_that_cannot_apply_say_what_where_and_which_axis() {
    let cases: Vec<(&str, ShardRequest, &[&str])> = vec![
        (
            "an axis that does not divide a dimension",
            request(
                plan("mesh = \"tp=3\"\n[parameters]\n\"l1.weight\" = [[\"tp\"], []]\n"),
                None,
                3,
            ),
            &[
                "weight `l1.weight`",
                "[32, 16]",
                "axis `tp` (3)",
                "dimension 0 (32)",
            ],
        ),
        (
            "a glob that matches nothing",
            request(
                plan("[parameters]\n\"encoder.*.weight\" = \"replicated\"\n"),
                Some("dp=2"),
                2,
            ),
            &["encoder.*.weight", "matches no parameter", "l1.weight"],
        ),
        (
            "an input that matches nothing",
            request(plan("[inputs]\ntokens = \"replicated\"\n"), Some("dp=2"), 2),
            &["tokens", "matches no input", "0 (`x`)"],
        ),
        (
            "a mesh that does not fit the target",
            request(PlanSource::Preset(Preset::DpTp), Some("dp=2,tp=4"), 4),
            &["dp=2,tp=4", "8 devices", "the target has 4"],
        ),
        (
            "an axis the mesh lacks",
            request(
                plan("[parameters]\n\"l2.weight\" = [[\"model\"], []]\n"),
                Some("dp=2"),
                2,
            ),
            &["weight `l2.weight`", "[16, 32]", "axis `model`", "`dp`"],
        ),
        (
            "a sharding of the wrong rank",
            request(
                plan("[parameters]\n\"l1.bias\" = [[\"dp\"], []]\n"),
                Some("dp=2"),
                2,
            ),
            &["weight `l1.bias`", "[32]", "rank 1", "2 dimensions"],
        ),
        (
            "one axis on two dimensions",
            request(
                plan("[parameters]\n\"l1.weight\" = [[\"dp\"], [\"dp\"]]\n"),
                Some("dp=2"),
                2,
            ),
            &[
                "weight `l1.weight`",
                "[32, 16]",
                "axis `dp` shards two dimensions",
            ],
        ),
        (
            "two rules for one weight",
            request(
                plan("[parameters]\n\"l1.*\" = \"replicated\"\n\"*.weight\" = \"replicated\"\n"),
                Some("dp=2"),
                2,
            ),
            &["weight `l1.weight`", "*.weight", "l1.*"],
        ),
        (
            "dp on a batch the axis does not divide",
            request(PlanSource::Preset(Preset::Dp), None, 16),
            &[
                "input 0 (`x`)",
                "[8, 16]",
                "axis `dp` (16)",
                "dimension 0 (8)",
            ],
        ),
        (
            "a two-axis preset without a two-axis mesh",
            request(PlanSource::Preset(Preset::DpTp), None, 4),
            &["dp+tp", "`tp`"],
        ),
    ];
    for (what, request, needles) in cases {
        let error = apply(MLP, &request).expect_err(what);
        let help = miette::Diagnostic::help(&error)
            .map(|h| h.to_string())
            .unwrap_or_default();
        let message = format!("{error} {help}");
        for needle in needles {
            assert!(
                message.contains(needle),
                "{what}: `{needle}` missing from: {message}"
            );
        }
    }
}

#[test]
fn plan_files_with_bad_syntax_are_refused_when_read() {
    for (text, needle) in [
        ("mesh = \"dp\"\n", "is not NAME=SIZE"),
        ("preset = \"zero\"\n", "unknown preset `zero`"),
        (
            "[parameters]\n\"w\" = \"sharded\"\n",
            "unknown sharding `sharded`",
        ),
        ("[parameters]\n\"w\" = [\"tp\"]\n", "write [\"tp\"]"),
        (
            "[parameters]\n\"w\" = { placements = [\"Partial()\"] }\n",
            "partial placements",
        ),
        ("[parameters]\n\"w[\" = \"replicated\"\n", "is not a glob"),
        ("shard = 1\n", "unknown field"),
    ] {
        let error = PlanFile::parse("p.toml", text).unwrap_err();
        assert!(error.to_string().contains(needle), "{text}: {error}");
    }
}

#[test]
fn requests_key_their_plan_and_mesh() {
    let a = request(PlanSource::Preset(Preset::Tp), None, 4);
    let b = request(PlanSource::Preset(Preset::Tp), None, 8);
    let c = request(PlanSource::Preset(Preset::Fsdp), None, 4);
    let keys: Vec<String> = [a, b, c].iter().map(|r| r.key_text().unwrap()).collect();
    assert_eq!(keys[0], "preset:tp;mesh:tp=4");
    assert_ne!(keys[0], keys[1]);
    assert_ne!(keys[0], keys[2]);
    assert_eq!(MeshSpec::single("dp", 4).to_string(), "dp=4");
}

#[test]
fn plan_files_pin_intermediates_by_fx_node() {
    let located = MLP.replace(
        "%3 = stablehlo.tanh %2 : tensor<8x32xf32>",
        "%3 = stablehlo.tanh %2 : tensor<8x32xf32> loc(\"tanh\")",
    );
    let file = plan("mesh = \"dp=2,tp=2\"\n[intermediates]\ntanh = [[\"dp\"], [\"tp\"]]\n");
    let module = apply(&located, &request(file, None, 4)).unwrap();
    let text = tpuc_ir::print::pretty(&module, &tpuc_ir::PrintOptions::default());
    let pinned = text
        .lines()
        .find(|l| l.contains("sdy.sharding_constraint"))
        .unwrap_or_else(|| panic!("no constraint in:\n{text}"));
    assert!(pinned.contains("<@mesh, [{\"dp\"}, {\"tp\"}]>"), "{pinned}");
    // The second layer reads the pinned value.
    let constraint = pinned.split(" = ").next().unwrap().trim();
    assert!(
        text.lines()
            .any(|l| l.contains("dot_general") && l.contains(&format!("{constraint},"))),
        "{text}"
    );

    let missing = plan("[intermediates]\nrelu_9 = \"replicated\"\n");
    let error = apply(&located, &request(missing, Some("dp=2"), 2)).unwrap_err();
    let help = miette::Diagnostic::help(&error)
        .map(|h| h.to_string())
        .unwrap_or_default();
    assert!(
        error.to_string().contains("`relu_9` matches no FX node"),
        "{error}"
    );
    assert!(help.contains("tanh"), "{help}");

    let indivisible =
        plan("mesh = \"dp=2,tp=2\"\n[intermediates]\ntanh = [[\"dp\", \"tp\"], [\"tp\"]]\n");
    let error = apply(&located, &request(indivisible, None, 4)).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("intermediate `tanh` has shape [8, 32]"),
        "{error}"
    );
}
