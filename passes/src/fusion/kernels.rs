//! Kernel libraries: StableHLO modules, each declaring (module attribute `tpuc.kernel`) the
//! composite its public `@main` implements, and the substitution of matching composites by a
//! call to the kernel. The format is described in docs/fusion.md.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tpuc_ir::{
    Attribute, ElementType, Function, InsertPoint, Module, NamedAttrs, NewOp, OpKind, PrintOptions,
    Type, Visibility,
};

use crate::error::PassError;

/// The module attribute declaring what a kernel implements.
pub const DECLARATION: &str = "tpuc.kernel";

/// One kernel: its module and what it declares.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The file it came from, relative to the library directory.
    pub file: PathBuf,
    /// The symbol its entry gets in a module that calls it (the module's name).
    pub name: String,
    pub composite: String,
    pub version: i32,
    /// `tpu` or `cpu`.
    pub target: String,
    /// Attributes the composite must carry with exactly these values.
    pub attributes: NamedAttrs,
    module: Module,
}

/// The kernels of a library directory for one target.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelLibrary {
    pub kernels: Vec<Kernel>,
    digest: String,
}

fn invalid(file: &Path, message: impl Into<String>) -> PassError {
    PassError::Kernel {
        file: file.display().to_string(),
        message: message.into(),
    }
}

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), PassError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| invalid(dir, format!("cannot read the directory: {e}")))?;
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| invalid(dir, format!("cannot list the directory: {e}")))?;
    paths.sort();
    for path in paths {
        if path.is_dir() {
            mlir_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
    Ok(())
}

impl KernelLibrary {
    /// Every `*.mlir` under `dir` (recursively, in path order) declaring `target`; kernels for
    /// other targets are skipped. Each file must parse, verify and declare a kernel.
    pub fn load(dir: &Path, target: &str) -> Result<Self, PassError> {
        let mut files = Vec::new();
        mlir_files(dir, &mut files)?;
        if files.is_empty() {
            return Err(invalid(dir, "holds no `.mlir` kernel"));
        }
        let mut kernels = Vec::new();
        let mut hasher = Sha256::new();
        for path in files {
            let relative = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| invalid(&path, format!("cannot read it: {e}")))?;
            let kernel =
                Kernel::parse(&relative, &text).map_err(|message| invalid(&path, message))?;
            if kernel.target != target {
                continue;
            }
            let canonical = tpuc_ir::print::generic(&kernel.module, &PrintOptions::default());
            hasher.update(relative.to_string_lossy().as_bytes());
            hasher.update([0]);
            hasher.update(canonical.as_bytes());
            hasher.update([0]);
            kernels.push(kernel);
        }
        let names: HashSet<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        if names.len() != kernels.len() {
            return Err(invalid(dir, "two kernels have the same module name"));
        }
        let digest = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Self { kernels, digest })
    }

    /// SHA-256 over every kernel's path and canonical text: what the cache key holds.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The kernel implementing a composite with these name, version, attributes and types.
    fn find(
        &self,
        name: &str,
        version: i32,
        attributes: &NamedAttrs,
        inputs: &[Type],
        outputs: &[Type],
    ) -> Option<&Kernel> {
        self.kernels.iter().find(|k| {
            let main = k.entry();
            k.composite == name
                && k.version == version
                && k.attributes
                    .iter()
                    .all(|(n, v)| attributes.get(n).is_some_and(|a| same_value(a, v)))
                && attributes
                    .iter()
                    .all(|(n, v)| !needs_declaring(name, n, v) || k.attributes.get(n).is_some())
                && main.arg_types() == inputs
                && main.result_types == outputs
        })
    }
}

/// Whether a composite attribute changes what the composite computes in a way its operand
/// types need not show, so that only a kernel declaring it (with this value) may serve the
/// composite: an attention's bias (when present) and soft cap. A kernel that does not mention
/// them computes neither.
fn needs_declaring(composite: &str, attribute: &str, value: &Attribute) -> bool {
    composite == super::names::ATTENTION
        && match attribute {
            "bias" => *value != Attribute::Bool(false),
            "attn_logits_soft_cap" => true,
            _ => false,
        }
}

/// Attribute equality, with `f32` floats compared as the `f32` values they denote (a declaration
/// may spell one with more or fewer digits).
fn same_value(a: &Attribute, b: &Attribute) -> bool {
    match (a, b) {
        (
            Attribute::Float {
                value: x,
                ty: ElementType::F32,
            },
            Attribute::Float {
                value: y,
                ty: ElementType::F32,
            },
        ) => *x as f32 == *y as f32,
        _ => a == b,
    }
}

impl Kernel {
    fn parse(file: &Path, text: &str) -> Result<Self, String> {
        let module =
            tpuc_ir::parse::parse_module(text).map_err(|e| format!("does not parse: {e}"))?;
        tpuc_ir::verify(&module).map_err(|e| format!("does not verify: {e}"))?;
        let Some(Attribute::Dict(declaration)) = module.attrs.get(DECLARATION) else {
            return Err(format!(
                "declares no kernel: the module needs a `{DECLARATION} = {{...}}` attribute"
            ));
        };
        let string = |key: &str| match declaration.get(key) {
            Some(Attribute::String(s)) => Ok(s.clone()),
            _ => Err(format!("`{DECLARATION}` needs `{key} = \"...\"`")),
        };
        let version = match declaration.get("version") {
            Some(Attribute::Int { value, .. }) => {
                i32::try_from(*value).map_err(|_| "`version` is out of range".to_owned())?
            }
            _ => return Err(format!("`{DECLARATION}` needs `version = N : i32`")),
        };
        let attributes = match declaration.get("attributes") {
            Some(Attribute::Dict(attributes)) => attributes.clone(),
            None => NamedAttrs::new(),
            Some(_) => return Err("`attributes` must be a dictionary".to_owned()),
        };
        let target = string("target")?;
        if !["tpu", "cpu"].contains(&target.as_str()) {
            return Err(format!("target `{target}` is neither `tpu` nor `cpu`"));
        }
        let name = module.name.clone().unwrap_or_else(|| {
            file.with_extension("")
                .to_string_lossy()
                .replace(['/', '\\', '.'], "_")
        });
        let kernel = Self {
            file: file.to_path_buf(),
            name,
            composite: string("composite")?,
            version,
            target,
            attributes,
            module,
        };
        match kernel.module.function("main") {
            Some(main) if main.visibility == Visibility::Public => Ok(kernel),
            _ => Err("has no public `@main`, the kernel's entry".to_owned()),
        }
    }

    fn entry(&self) -> &Function {
        self.module.function("main").expect("checked when loaded")
    }

    /// The operand types of the composites it implements (its `@main`'s arguments).
    pub fn operand_types(&self) -> Vec<Type> {
        self.entry().arg_types()
    }

    /// The kernel's functions renamed for `module`: `@main` becomes `@NAME`, the others
    /// `@NAME__OTHER`, all private, calls and composites inside following the names.
    fn functions(&self) -> Vec<Function> {
        let rename: HashMap<String, String> = self
            .module
            .functions
            .iter()
            .map(|f| {
                let new = if f.name == "main" {
                    self.name.clone()
                } else {
                    format!("{}__{}", self.name, f.name)
                };
                (f.name.clone(), new)
            })
            .collect();
        self.module
            .functions
            .iter()
            .map(|f| {
                let mut f = f.clone();
                f.name = rename[&f.name].clone();
                f.visibility = Visibility::Private;
                f.result_attrs = vec![NamedAttrs::new(); f.result_types.len()];
                for op in f.walk() {
                    match f.kind_mut(op) {
                        OpKind::Call { callee } => *callee = rename[callee.as_str()].clone(),
                        OpKind::Composite { decomposition, .. } => {
                            *decomposition = rename[decomposition.as_str()].clone()
                        }
                        _ => {}
                    }
                }
                f
            })
            .collect()
    }
}

/// Replaces every composite some kernel implements by a call to it (the kernel's functions
/// join the module once); decompositions left unused are dropped. Returns how many composites
/// each kernel replaced.
pub fn substitute(
    module: &mut Module,
    library: &KernelLibrary,
) -> Result<BTreeMap<String, usize>, PassError> {
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    let mut replaced_decompositions = HashSet::new();
    for f in &mut module.functions {
        for op in f.walk() {
            let OpKind::Composite {
                name,
                attributes,
                decomposition,
                version,
            } = &f.op(op).kind
            else {
                continue;
            };
            let inputs = value_types(f, &f.op(op).operands);
            let outputs = value_types(f, &f.op(op).results);
            let Some(kernel) = library.find(name, *version, attributes, &inputs, &outputs) else {
                continue;
            };
            replaced_decompositions.insert(decomposition.clone());
            let location = f.op(op).location.clone();
            let call = f.insert_op(
                InsertPoint::Before(op),
                NewOp {
                    location,
                    ..NewOp::new(
                        OpKind::Call {
                            callee: kernel.name.clone(),
                        },
                        f.op(op).operands.clone(),
                        outputs,
                    )
                },
            );
            let results = f.op(call).results.clone();
            f.replace_op(op, &results);
            *used.entry(kernel.name.clone()).or_insert(0) += 1;
        }
    }
    let still_used = super::decomposition_names(module);
    module
        .functions
        .retain(|f| !replaced_decompositions.contains(&f.name) || still_used.contains(&f.name));
    for kernel in library
        .kernels
        .iter()
        .filter(|k| used.contains_key(&k.name))
    {
        for function in kernel.functions() {
            if module.function(&function.name).is_some() {
                return Err(PassError::Kernel {
                    file: kernel.file.display().to_string(),
                    message: format!(
                        "its function `@{}` clashes with one of the module",
                        function.name
                    ),
                });
            }
            module.functions.push(function);
        }
    }
    Ok(used)
}

fn value_types(f: &Function, values: &[tpuc_ir::Value]) -> Vec<Type> {
    values.iter().map(|&v| f.value_type(v).clone()).collect()
}

/// The `kernels` pass: each composite a kernel of the library implements becomes a call to it.
pub struct SubstituteKernels {
    pub library: KernelLibrary,
}

impl crate::pass::Pass for SubstituteKernels {
    fn name(&self) -> &'static str {
        "kernels"
    }

    fn run(
        &self,
        program: &mut tpuc_ir::Program,
        cx: &mut crate::pass::PassContext,
    ) -> Result<(), PassError> {
        for (kernel, count) in substitute(&mut program.module, &self.library)? {
            *cx.kernels.entry(kernel).or_default() += count;
        }
        Ok(())
    }
}
