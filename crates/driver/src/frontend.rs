//! The front end: a program read from a `.pt2` archive (lowered) or from StableHLO text
//! (`.mlir`: JAX's, torch_xla's, torch-mlir's or tpuc's own, parsed and verified), and the
//! front-end key that names the lowered module in the cache.

use std::collections::BTreeMap;
use std::path::Path;

use tpuc_cache::{FrontendParts, sha256};
use tpuc_ir::Program;
use tpuc_lower::LowerOptions;
use tpuc_pt2::Archive;

use crate::error::{DriverError, MlirParseError, Result};
use crate::options::Options;

/// Where a program is read from.
pub enum ProgramSource {
    Archive(Box<Archive>),
    /// StableHLO text and the file it came from.
    Text {
        path: String,
        text: String,
    },
}

/// Whether `model` names StableHLO text rather than a `.pt2` archive.
pub fn is_mlir(model: &Path) -> bool {
    model.extension().is_some_and(|e| e == "mlir")
}

impl ProgramSource {
    /// Opens `model`: an archive's program JSON only (weights stay unread), or the text.
    pub fn open(model: &Path) -> Result<Self> {
        if is_mlir(model) {
            let text = std::fs::read_to_string(model).map_err(|error| {
                DriverError::Unsupported(format!("cannot read {}: {error}", model.display()))
            })?;
            return Ok(Self::Text {
                path: model.display().to_string(),
                text,
            });
        }
        Ok(Self::Archive(Box::new(Archive::open(model)?)))
    }

    /// What the middle end runs first for a program from here.
    pub fn kind(&self) -> tpuc_passes::Source {
        match self {
            Self::Archive(_) => tpuc_passes::Source::Archive,
            Self::Text { .. } => tpuc_passes::Source::Text,
        }
    }

    pub fn archive(&self) -> Option<&Archive> {
        match self {
            Self::Archive(archive) => Some(archive),
            Self::Text { .. } => None,
        }
    }

    /// The program before the middle end, the symbol values it was specialised to, and the
    /// front end's warnings.
    pub fn program(&self, options: &LowerOptions) -> Result<tpuc_lower::Lowered> {
        match self {
            Self::Archive(archive) => lower_archive(archive, options),
            Self::Text { path, text } => Ok(tpuc_lower::Lowered {
                program: parse(path, text)?,
                dims: BTreeMap::new(),
                warnings: Vec::new(),
            }),
        }
    }

    /// The front-end key's parts: the program (an archive's without metadata, or the text), the
    /// options that shape the module — the pipeline by its canonical text — and, only when
    /// weights are inlined into the module, the weights' bytes.
    pub fn key_parts(&self, options: &Options) -> Result<FrontendParts> {
        let pipeline = options.pipeline.spec(self.kind()).canonical_text()?;
        let (program_sha256, lower_options, inlined_weights_sha256) = match self {
            Self::Archive(archive) => {
                let mut program = serde_json::to_value(archive.program()).map_err(|error| {
                    DriverError::Unsupported(format!("cannot hash the program: {error}"))
                })?;
                strip_metadata(&mut program);
                let lower = &options.lower;
                let mut lower_options = serde_json::json!({
                    "inline_weights": lower.inline_weights,
                    "dims": lower.dims,
                    "input_shapes": lower.input_shapes,
                    "debug": lower.debug,
                    "debug_nan": lower.debug_nan,
                    "world_size": lower.world_size,
                    "outputs": lower.outputs,
                    "pipeline": pipeline,
                });
                // Only when asked, so the keys of every other program stay as they were.
                if let Some(dtype) = lower.autocast {
                    lower_options["autocast"] = serde_json::json!(dtype.to_string());
                }
                // Subclass weights shape the module (their inner tensors are its arguments)
                // from records the program JSON does not hold.
                if archive.subclasses().len() > 0 {
                    lower_options["subclass_weights"] = subclass_layouts(archive);
                }
                let inlined = lower
                    .inline_weights
                    .then(|| inlined_weights_digest(archive))
                    .transpose()?;
                (
                    sha256(program.to_string().as_bytes()),
                    lower_options,
                    inlined,
                )
            }
            Self::Text { text, .. } => {
                let mut lower_options =
                    serde_json::json!({ "source": "mlir", "pipeline": pipeline });
                // Only when given, so the keys of every other module stay as they were.
                if !options.parameters.is_empty() {
                    lower_options["parameters"] = serde_json::json!(options.parameters);
                }
                (sha256(text.as_bytes()), lower_options, None)
            }
        };
        Ok(FrontendParts {
            program_sha256,
            lower_options: lower_options.to_string(),
            inlined_weights_sha256,
            tpuc_version: tpuc_cache::TPUC_VERSION.to_owned(),
        })
    }
}

/// Each tensor-subclass weight's class, value type and inner tensors' types.
fn subclass_layouts(archive: &Archive) -> serde_json::Value {
    let layouts = archive.subclasses().map(|subclass| {
        let inner: Vec<serde_json::Value> = subclass
            .attributes()
            .filter_map(|attribute| {
                let weight = archive.weight(subclass.inner(attribute)?)?;
                Some(serde_json::json!([
                    attribute,
                    weight.dtype(),
                    weight.sizes()
                ]))
            })
            .collect();
        serde_json::json!({
            "fqn": subclass.fqn(),
            "class": subclass.class(),
            "target_dtype": subclass.target_dtype(),
            "inner": inner,
        })
    });
    serde_json::Value::Array(layouts.collect())
}

fn inlined_weights_digest(archive: &Archive) -> Result<tpuc_cache::Digest> {
    let mut all = Vec::new();
    for weight in archive.weights() {
        let bytes = archive.view(weight).to_contiguous_bytes()?;
        all.extend_from_slice(weight.fqn().as_bytes());
        all.push(0);
        all.extend_from_slice(sha256(&bytes).0.as_slice());
    }
    Ok(sha256(&all))
}

/// Parses and verifies StableHLO text; its interface is what `main`'s attributes say.
pub fn parse(path: &str, text: &str) -> Result<Program> {
    let (module, spans) = tpuc_ir::parse::parse_module_with_spans(text).map_err(|error| {
        DriverError::MlirParse(Box::new(MlirParseError {
            path: path.to_owned(),
            span: error.span,
            help: error.help.clone(),
            error,
            text: miette::NamedSource::new(path, text.to_owned()),
        }))
    })?;
    tpuc_ir::verify(&module).map_err(|e| {
        DriverError::Module(Box::new(
            e.with_module_text(path, text, &spans).with_user_sources(),
        ))
    })?;
    if module.function(tpuc_ir::program::ENTRY).is_none() {
        return Err(DriverError::Unsupported(format!(
            "{path} has no `main` function; tpuc compiles and runs a module's public `main`"
        )));
    }
    Ok(Program::from_module(module)?)
}

/// Removes every `metadata` member (stack traces, module paths, source names): they change
/// only the locations, which the canonical module text strips.
fn strip_metadata(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(members) => {
            members.remove("metadata");
            members.values_mut().for_each(strip_metadata);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_metadata),
        _ => {}
    }
}

/// The archive's program lowered, the CHLO ops the lowering emits (`acos`, `sinh`, ...)
/// rewritten into StableHLO, so every pass sees StableHLO.
pub(crate) fn lower_archive(
    archive: &Archive,
    options: &LowerOptions,
) -> Result<tpuc_lower::Lowered> {
    let mut lowered = tpuc_lower::lower(archive, options)?;
    tpuc_passes::legalize_chlo(&mut lowered.program.module);
    Ok(lowered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_stripped_at_every_depth() {
        let mut value = serde_json::json!({
            "metadata": {"a": 1},
            "nodes": [{"target": "add", "metadata": {"stack_trace": "x.py:1"}}],
        });
        strip_metadata(&mut value);
        assert_eq!(value, serde_json::json!({"nodes": [{"target": "add"}]}));
    }
}
