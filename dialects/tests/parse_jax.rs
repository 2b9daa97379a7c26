//! The parser on StableHLO text JAX wrote (testdata/jax): every module parses, verifies and
//! survives print → parse → print unchanged, the CHLO ops JAX prints included; CHLO ops tpuc
//! does not model are rejected with a diagnostic.

mod common;

use std::path::{Path, PathBuf};

use common::{PRINTERS, STYLES};
use tpuc_ir::parse::parse_module;
use tpuc_ir::{Module, PrintOptions, print, verify};

fn jax_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/jax")
}

fn mlir_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(jax_dir())
        .expect("testdata/jax exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mlir"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 8,
        "expected the JAX fixtures, found {files:?}"
    );
    files
}

fn parse_file(path: &Path) -> Module {
    let text = std::fs::read_to_string(path).expect("fixture is readable");
    parse_module(&text).unwrap_or_else(|error| {
        panic!(
            "{}: {:?}",
            path.display(),
            error.with_source(path.display().to_string(), text)
        )
    })
}

#[test]
fn jax_modules_parse_verify_and_round_trip() {
    for path in &mlir_files() {
        let module = parse_file(path);
        assert!(
            module.functions.iter().any(|f| f.name == "main"),
            "{}",
            path.display()
        );
        assert_eq!(module.num_partitions, Some(1));
        assert_eq!(module.num_replicas, Some(1));
        if let Err(error) = verify(&module) {
            panic!("{}: parsed module does not verify: {error}", path.display());
        }
        for style in STYLES {
            let options = PrintOptions::with_locations(style);
            for (form, printer) in PRINTERS {
                let first = printer(&module, &options);
                let reparsed = parse_module(&first).unwrap_or_else(|error| {
                    panic!(
                        "{} reprinted ({form}, {style:?}) does not parse: {:?}",
                        path.display(),
                        error.with_source("reprinted", first.clone())
                    )
                });
                let second = printer(&reparsed, &options);
                assert!(
                    first == second,
                    "{}: {form} {style:?} print → parse → print differs",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn jax_pretty_and_generic_forms_parse_to_the_same_module() {
    for path in &mlir_files() {
        let name = path.file_name().unwrap().to_string_lossy();
        let Some(stem) = name.strip_suffix(".pretty.mlir") else {
            continue;
        };
        let pretty = parse_file(path);
        let generic = parse_file(&jax_dir().join(format!("{stem}.generic.mlir")));
        for style in STYLES {
            let options = PrintOptions::with_locations(style);
            assert_eq!(
                print::generic(&pretty, &options),
                print::generic(&generic, &options),
                "{stem}: pretty and generic JAX text differ ({style:?})"
            );
        }
    }
}

#[test]
fn jax_locations_are_kept() {
    let module = parse_file(&jax_dir().join("control_flow.pretty.mlir"));
    let main = module.function("main").unwrap();
    let first = main.op(main.block(main.entry_block()).ops[0]);
    // `#loc98 = loc("jit(control_flow)"(#loc...))` wraps a callsite whose callee is a file line.
    let tpuc_ir::Location::Name { name, child } = &first.location else {
        panic!("expected a name location, got {:?}", first.location);
    };
    assert_eq!(name, "jit(control_flow)");
    let mut inner = child.as_deref();
    while let Some(tpuc_ir::Location::Name { child, .. }) = inner {
        inner = child.as_deref();
    }
    assert!(
        matches!(inner, Some(tpuc_ir::Location::FileLineCol { file, .. }) if file == "testdata/jax/generate.py"),
        "innermost location is {inner:?}"
    );
}

#[test]
fn unmodelled_chlo_ops_are_rejected_at_the_op() {
    let path = jax_dir().join("chlo_ops.pretty.mlir");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("chlo.erfc", "chlo.minimum_broadcast_shapes");
    let error = parse_module(&text).expect_err("chlo.minimum_broadcast_shapes is not modelled");
    assert!(
        error
            .message
            .contains("unsupported CHLO op `chlo.minimum_broadcast_shapes`"),
        "{}",
        error.message
    );
    assert!(error.message.contains("chlo.top_k"), "{}", error.message);
    let line = text
        .lines()
        .position(|l| l.contains("chlo.minimum_broadcast_shapes"))
        .unwrap()
        + 1;
    assert_eq!(error.line, line);
    let column = text
        .lines()
        .nth(line - 1)
        .unwrap()
        .find("chlo.minimum_broadcast_shapes")
        .unwrap();
    assert_eq!(error.column, column + 1);
}
