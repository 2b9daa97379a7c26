//! Plans as users write them: the items they expand to, and the diagnostics they earn.

use std::path::Path;
use std::str::FromStr;

use tempfile::TempDir;
use tpuc_prewarm::{Plan, PlanError, PlanOptions};

/// Stands in for the compile path's target type: the plan crate only needs `FromStr`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Target(String);

impl FromStr for Target {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "cpu" | "tpu:v5e:2x2" | "tpu:v6e:2x2" => Ok(Target(text.to_owned())),
            _ => Err(format!(
                "unknown target `{text}`; targets are cpu or tpu:<topology>"
            )),
        }
    }
}

/// A directory holding `files` (empty) and `plan.toml` with `plan`.
fn workspace(files: &[&str], plan: &str) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"").unwrap();
    }
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    dir
}

fn load(dir: &TempDir) -> Result<Plan<Target>, PlanError> {
    Plan::load(&dir.path().join("plan.toml"))
}

/// Items as `model|shape|target` with the model relative to the plan's directory.
fn listing(dir: &TempDir, plan: &Plan<Target>) -> Vec<String> {
    plan.items
        .iter()
        .map(|item| {
            let model = item.model.strip_prefix(dir.path()).unwrap();
            format!("{}|{}|{}", model.display(), item.shape, item.target.0)
        })
        .collect()
}

const MODELS: &[&str] = &[
    "models/a.pt2",
    "models/b.pt2",
    "models/c.pt2",
    "models/notes.txt",
];

#[test]
fn three_models_two_shapes_two_targets_make_twelve_items_in_plan_order() {
    let dir = workspace(
        MODELS,
        r#"
[[models]]
path = "models/*.pt2"
targets = ["tpu:v5e:2x2", "cpu"]
dims = { s0 = [1, 8] }
"#,
    );
    let plan = load(&dir).unwrap();
    assert_eq!(
        listing(&dir, &plan),
        [
            "models/a.pt2|s0=1|tpu:v5e:2x2",
            "models/a.pt2|s0=1|cpu",
            "models/a.pt2|s0=8|tpu:v5e:2x2",
            "models/a.pt2|s0=8|cpu",
            "models/b.pt2|s0=1|tpu:v5e:2x2",
            "models/b.pt2|s0=1|cpu",
            "models/b.pt2|s0=8|tpu:v5e:2x2",
            "models/b.pt2|s0=8|cpu",
            "models/c.pt2|s0=1|tpu:v5e:2x2",
            "models/c.pt2|s0=1|cpu",
            "models/c.pt2|s0=8|tpu:v5e:2x2",
            "models/c.pt2|s0=8|cpu",
        ]
    );
    assert_eq!(plan.options, PlanOptions::default());
    assert!(plan.items.iter().all(|item| item.entry == 0));
}

#[test]
fn without_dims_each_model_compiles_at_its_exported_example() {
    let dir = workspace(
        MODELS,
        "[[models]]\npath = \"models/b.pt2\"\ntargets = [\"cpu\"]\n",
    );
    let plan = load(&dir).unwrap();
    assert_eq!(listing(&dir, &plan), ["models/b.pt2|example|cpu"]);
    assert!(plan.items[0].shape.is_example());
}

#[test]
fn several_symbols_expand_to_their_product() {
    let dir = workspace(
        MODELS,
        r#"
[[models]]
path = "models/a.pt2"
targets = ["cpu"]
dims = { s1 = [128, 256], s0 = [1, 8, 1] }
"#,
    );
    assert_eq!(
        listing(&dir, &load(&dir).unwrap()),
        [
            "models/a.pt2|s0=1,s1=128|cpu",
            "models/a.pt2|s0=1,s1=256|cpu",
            "models/a.pt2|s0=8,s1=128|cpu",
            "models/a.pt2|s0=8,s1=256|cpu",
        ]
    );
}

#[test]
fn globs_stay_in_one_directory_unless_double_starred_and_skip_hidden_files() {
    let files = [
        "m/x.pt2",
        "m/.hidden.pt2",
        "m/deep/y.pt2",
        "m/deep/er/z.pt2",
    ];
    let one_level = workspace(
        &files,
        "[[models]]\npath = \"m/*.pt2\"\ntargets = [\"cpu\"]\n",
    );
    assert_eq!(
        listing(&one_level, &load(&one_level).unwrap()),
        ["m/x.pt2|example|cpu"]
    );
    let all_levels = workspace(
        &files,
        "[[models]]\npath = \"m/**/*.pt2\"\ntargets = [\"cpu\"]\n",
    );
    assert_eq!(
        listing(&all_levels, &load(&all_levels).unwrap()),
        [
            "m/deep/er/z.pt2|example|cpu",
            "m/deep/y.pt2|example|cpu",
            "m/x.pt2|example|cpu"
        ]
    );
}

#[test]
fn entries_that_overlap_list_each_item_once_and_options_are_read() {
    let dir = workspace(
        &[MODELS, &["keys/ci.pub"]].concat(),
        r#"
[options]
jobs = 3
remote = "s3://team-cache/tpuc"
endpoint = "http://127.0.0.1:9000"
read_only = true
trust_keys = ["keys/ci.pub"]

[[models]]
path = "models/a.pt2"
targets = ["cpu", "cpu"]

[[models]]
path = "models/[ab].pt2"
targets = ["tpu:v6e:2x2", "cpu"]
"#,
    );
    let plan = load(&dir).unwrap();
    assert_eq!(
        listing(&dir, &plan),
        [
            "models/a.pt2|example|cpu",
            "models/a.pt2|example|tpu:v6e:2x2",
            "models/b.pt2|example|tpu:v6e:2x2",
            "models/b.pt2|example|cpu",
        ]
    );
    let entries: Vec<usize> = plan.items.iter().map(|item| item.entry).collect();
    assert_eq!(entries, [0, 1, 1, 1]);
    assert_eq!(
        plan.options,
        PlanOptions {
            jobs: Some(3),
            remote: Some("s3://team-cache/tpuc".into()),
            endpoint: Some("http://127.0.0.1:9000".into()),
            read_only: true,
            trust_keys: vec![dir.path().join("keys/ci.pub")],
            ..PlanOptions::default()
        }
    );
}

#[test]
fn mistakes_are_reported_where_they_are() {
    let model = |extra: &str| format!("[[models]]\npath = \"models/a.pt2\"\n{extra}\n");
    let cases: Vec<(String, &str, Option<&str>)> = vec![
        (
            "[[models]]\npath = \"models/a.pt2\"\ntargets = [\"cpu\"]\nshapes = 1\n".into(),
            "unknown field `shapes`",
            Some("shapes"),
        ),
        (
            "[[model]]\npath = \"models/a.pt2\"\n".into(),
            "unknown field `model`",
            Some("model"),
        ),
        (
            "[[models]]\npath = \"models/a.pt2\"\n".into(),
            "missing field `targets`",
            None,
        ),
        (
            model("targets = [\"cpu\", \"tpu:v9:2x2\"]"),
            "unknown target `tpu:v9:2x2`",
            Some("\"tpu:v9:2x2\""),
        ),
        (
            model("targets = []"),
            "a model entry needs at least one target",
            Some("[]"),
        ),
        (
            "[[models]]\npath = \"nothing/*.pt2\"\ntargets = [\"cpu\"]\n".into(),
            "`nothing/*.pt2` matches no model file",
            Some("\"nothing/*.pt2\""),
        ),
        (
            "[[models]]\npath = \"models/[a.pt2\"\ntargets = [\"cpu\"]\n".into(),
            "`models/[a.pt2` is not a valid path pattern",
            Some("\"models/[a.pt2\""),
        ),
        (
            model("targets = [\"cpu\"]\ndims = { s0 = [1, 0] }"),
            "`0` is not a dimension size",
            Some("0"),
        ),
        (
            model("targets = [\"cpu\"]\ndims = { s0 = [] }"),
            "no sizes listed for symbol `s0`",
            Some("[]"),
        ),
        (
            format!("[options]\njobs = 0\n{}", model("targets = [\"cpu\"]")),
            "`jobs` must be a positive number",
            Some("0"),
        ),
        (
            format!(
                "[options]\nremote = \"team-cache\"\n{}",
                model("targets = [\"cpu\"]")
            ),
            "invalid remote cache location `team-cache`",
            Some("\"team-cache\""),
        ),
        (
            format!(
                "[options]\nendpoint = \"localhost:9000\"\n{}",
                model("targets = [\"cpu\"]")
            ),
            "the endpoint `localhost:9000` is not an http:// or https:// URL",
            Some("\"localhost:9000\""),
        ),
        (
            format!(
                "[options]\ntrust_keys = [\"ci.pub\"]\n{}",
                model("targets = [\"cpu\"]")
            ),
            "the trusted key file `ci.pub` does not exist",
            Some("\"ci.pub\""),
        ),
        (
            "[options]\njobs = 2\n".into(),
            "the plan lists no models",
            None,
        ),
        ("[[models]\npath = 1".into(), "unclosed array table", None),
    ];
    for (plan, message, located) in cases {
        let dir = workspace(MODELS, &plan);
        let error = load(&dir).expect_err(&plan);
        assert!(
            error.message().contains(message),
            "plan:\n{plan}\nexpected `{message}`, got `{}`",
            error.message()
        );
        if let Some(located) = located {
            assert_eq!(error.located_text(), Some(located), "plan:\n{plan}");
        }
        assert!(matches!(error, PlanError::Invalid(_)));
    }
}

#[test]
fn a_missing_plan_file_is_a_read_error() {
    let error = Plan::<Target>::load(Path::new("no/such/plan.toml")).unwrap_err();
    assert!(matches!(error, PlanError::Read { .. }), "{error:?}");
}

#[test]
fn entry_errors_point_at_the_entry() {
    let dir = workspace(
        MODELS,
        "[[models]]\npath = \"models/a.pt2\"\ntargets = [\"cpu\"]\n\n[[models]]\npath = \"models/b.pt2\"\ntargets = [\"cpu\"]\n",
    );
    let plan = load(&dir).unwrap();
    let error = plan.entry_error(1, "model b has no symbol `s9`".into(), None);
    assert_eq!(error.message(), "model b has no symbol `s9`");
    assert_eq!(error.located_text(), Some("\"models/b.pt2\""));
}
