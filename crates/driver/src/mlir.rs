//! StableHLO text as a program: a `.mlir` file (JAX's, torch_xla's, torch-mlir's or tpuc's
//! own) goes through the passes, the cache and `run` as a lowered archive does. CHLO is
//! legalized first; every argument of `main` is a user input, every result a user output.

use std::collections::BTreeMap;
use std::path::Path;

use tpuc_cache::{FrontendParts, sha256};
use tpuc_ir::{Module, Type};
use tpuc_lower::{
    ArgumentBinding, ArgumentSource, LowerOptions, Lowered, ResultBinding, ResultSource,
};
use tpuc_passes::{MLIR_INPUT_PASSES, PassOptions};
use tpuc_pt2::DType;

use crate::error::{DriverError, MlirParseError, Result};

/// Whether `model` names StableHLO text rather than a `.pt2` archive.
pub fn is_mlir(model: &Path) -> bool {
    model.extension().is_some_and(|e| e == "mlir")
}

/// The file's text.
pub fn read_text(model: &Path) -> Result<String> {
    std::fs::read_to_string(model).map_err(|error| {
        DriverError::Unsupported(format!("cannot read {}: {error}", model.display()))
    })
}

/// The front-end key of a `.mlir` program: its text and the passes it goes through.
pub fn frontend_parts(text: &str, options: &LowerOptions) -> FrontendParts {
    let lower_options = serde_json::json!({
        "source": "mlir",
        "passes": options.passes.pipeline,
    });
    FrontendParts {
        program_sha256: sha256(text.as_bytes()),
        lower_options: lower_options.to_string(),
        inlined_weights_sha256: None,
        tpuc_version: tpuc_cache::TPUC_VERSION.to_owned(),
    }
}

/// Parses and verifies `text` (read from `model`), legalizes CHLO, runs the passes and
/// describes `main`'s signature.
pub fn lower_text(model: &Path, text: &str, options: &LowerOptions) -> Result<Lowered> {
    let name = model.display().to_string();
    if options.sharding.is_some() {
        return Err(DriverError::Unsupported(format!(
            "{name}: --shard applies to .pt2 programs; a StableHLO module carries its own \
             `sdy.sharding` annotations"
        )));
    }
    let (mut module, spans) = tpuc_ir::parse::parse_module_with_spans(text).map_err(|error| {
        DriverError::MlirParse(Box::new(MlirParseError {
            path: name.clone(),
            span: error.span,
            help: error.help.clone(),
            error,
            text: miette::NamedSource::new(&name, text.to_owned()),
        }))
    })?;
    tpuc_ir::verify(&module).map_err(|e| {
        DriverError::Module(Box::new(
            e.with_module_text(&name, text, &spans).with_user_sources(),
        ))
    })?;
    let legalize = PassOptions {
        pipeline: MLIR_INPUT_PASSES.to_owned(),
        run: options.passes.run.clone(),
        kernels: None,
    };
    legalize.run(&mut module).map_err(unsupported)?;
    // `main`'s arguments are the module's interface (`run` binds its inputs by position), so
    // the passes may not drop those that end up unused.
    let interface_kept = PassOptions {
        pipeline: options
            .passes
            .pipeline
            .split(',')
            .filter(|pass| pass.trim() != "prune-args")
            .collect::<Vec<_>>()
            .join(","),
        run: options.passes.run.clone(),
        kernels: options.passes.kernels.clone(),
    };
    let passes = interface_kept.run(&mut module).map_err(unsupported)?;
    let (arguments, results) = signature(&module, &name)?;
    Ok(Lowered {
        module,
        arguments,
        results,
        dims: BTreeMap::new(),
        passes,
        sharding: None,
    })
}

fn unsupported(error: tpuc_passes::PassError) -> DriverError {
    DriverError::Unsupported(error.to_string())
}

/// `main`'s arguments as user inputs (`arg0`, `arg1`, ...) and its results as user outputs.
fn signature(module: &Module, name: &str) -> Result<(Vec<ArgumentBinding>, Vec<ResultBinding>)> {
    let main = module.function("main").ok_or_else(|| {
        DriverError::Unsupported(format!(
            "{name} has no `main` function; tpuc compiles and runs a module's public `main`"
        ))
    })?;
    let arguments = main
        .arg_types()
        .iter()
        .enumerate()
        .map(|(index, ty)| {
            let (dtype, shape) = tensor_of(ty, name, &format!("argument {index}"))?;
            Ok(ArgumentBinding {
                source: ArgumentSource::UserInput {
                    index,
                    name: format!("arg{index}"),
                },
                dtype,
                shape,
            })
        })
        .collect::<Result<_>>()?;
    let results = main
        .result_types
        .iter()
        .enumerate()
        .map(|(index, ty)| {
            let (dtype, shape) = tensor_of(ty, name, &format!("result {index}"))?;
            Ok(ResultBinding {
                source: ResultSource::UserOutput { index },
                dtype,
                shape,
            })
        })
        .collect::<Result<_>>()?;
    Ok((arguments, results))
}

/// The torch dtype and static shape of a `main` argument or result.
fn tensor_of(ty: &Type, name: &str, what: &str) -> Result<(DType, Vec<i64>)> {
    let unsupported = |why: String| DriverError::Unsupported(format!("{name}: {what} {why}"));
    let tensor = ty
        .as_tensor()
        .ok_or_else(|| unsupported(format!("is {ty}, not a tensor")))?;
    let shape = tensor
        .static_shape()
        .ok_or_else(|| unsupported(format!("has a dynamic shape ({ty}); give static shapes")))?;
    let dtype = tpuc_lower::torch_dtype(tensor.element).ok_or_else(|| {
        unsupported(format!(
            "has element type {}, which tpuc cannot bind",
            tensor.element
        ))
    })?;
    Ok((dtype, shape.into_iter().map(|d| d as i64).collect()))
}
