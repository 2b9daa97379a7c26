//! Loading a plan: parse, validate, expand globs and dims, list the items.

use std::collections::{BTreeMap, HashSet};
use std::hash::Hash;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use glob::MatchOptions;
use miette::NamedSource;
use toml::Spanned;

use crate::error::{InvalidPlan, PlanError};
use crate::schema::{RawModel, RawOptions, RawPlan};
use crate::shape::{Shape, specialisations};

/// A validated plan. `T` is the compile path's target type, parsed from the plan's strings
/// with its own `FromStr` (its error text becomes the diagnostic).
#[derive(Debug, Clone)]
pub struct Plan<T> {
    pub options: PlanOptions,
    /// Every (model, shape, target, sharding, optimizer, cache type) to compile, in plan order, without
    /// duplicates.
    pub items: Vec<Item<T>>,
    source: NamedSource<String>,
    entry_spans: Vec<Range<usize>>,
}

/// `[options]`: defaults that command-line flags override.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanOptions {
    pub jobs: Option<usize>,
    pub remote: Option<String>,
    pub endpoint: Option<String>,
    pub read_only: bool,
    /// Outline composites (`--fuse`).
    pub fuse: bool,
    /// A kernel library (`--kernels`), relative to the plan's directory as written.
    pub kernels: Option<PathBuf>,
    /// `tpu` or `cpu` (`--kernel-target`).
    pub kernel_target: Option<String>,
    /// Public key files (joined to the plan's directory): accept only shared entries signed
    /// by one of them.
    pub trust_keys: Vec<PathBuf>,
}

/// One compile of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<T> {
    /// The archive: the plan's directory joined with the matched path.
    pub model: PathBuf,
    pub shape: Shape,
    pub target: T,
    /// `--shard` for this item: a preset name, or a plan file's path (the plan's directory
    /// joined with what the entry says).
    pub shard: Option<String>,
    /// `--mesh` for this item.
    pub mesh: Option<String>,
    /// `--optimizer` for this item: a training step.
    pub optimizer: Option<String>,
    /// `--kv-dtype` for this item: a decode step's cache stored narrower.
    pub kv_dtype: Option<String>,
    /// Index of the `[[models]]` entry it came from (see [`Plan::entry_error`]).
    pub entry: usize,
}

impl<T> Plan<T>
where
    T: FromStr<Err = String> + Clone + Eq + Hash,
{
    pub fn load(path: &Path) -> Result<Self, PlanError> {
        let text = std::fs::read_to_string(path).map_err(|source| PlanError::Read {
            path: path.to_owned(),
            source,
        })?;
        let base = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        Self::parse(&path.display().to_string(), text, base)
    }

    /// Parses plan `text` (named `name` in diagnostics); model paths are relative to `base`.
    pub fn parse(name: &str, text: String, base: &Path) -> Result<Self, PlanError> {
        let source = NamedSource::new(name, text);
        let at = Locator { source: &source };
        let raw: RawPlan = toml::from_str(source.inner()).map_err(|error| {
            let span = error.span().unwrap_or(0..0);
            at.error(span, error.message().to_owned(), "here", None)
        })?;
        let options = resolve_options(&raw.options, base, &at)?;
        if raw.models.is_empty() {
            return Err(at.error(
                0..0,
                "the plan lists no models".into(),
                "expected a [[models]] table",
                Some("add one: [[models]] path = \"models/*.pt2\" targets = [\"cpu\"]".into()),
            ));
        }

        let mut items = Vec::new();
        let mut seen = HashSet::new();
        for (entry, model) in raw.models.iter().enumerate() {
            for item in resolve_entry::<T>(entry, model.get_ref(), base, &at)? {
                if seen.insert((
                    item.model.clone(),
                    item.shape.clone(),
                    item.target.clone(),
                    item.shard.clone(),
                    item.mesh.clone(),
                    item.optimizer.clone(),
                    item.kv_dtype.clone(),
                )) {
                    items.push(item);
                }
            }
        }
        let entry_spans = raw.models.iter().map(|m| m.get_ref().path.span()).collect();
        Ok(Plan {
            options,
            items,
            source,
            entry_spans,
        })
    }

    /// A diagnostic about `[[models]]` entry `entry`, pointing at its `path`: for the
    /// compile path to report, say, a symbol the model does not have.
    pub fn entry_error(&self, entry: usize, message: String, help: Option<String>) -> PlanError {
        let span = self.entry_spans.get(entry).cloned().unwrap_or(0..0);
        Locator {
            source: &self.source,
        }
        .error(span, message, "in the entry for this path", help)
    }
}

struct Locator<'a> {
    source: &'a NamedSource<String>,
}

impl Locator<'_> {
    fn error(
        &self,
        span: Range<usize>,
        message: String,
        label: &str,
        help: Option<String>,
    ) -> PlanError {
        PlanError::Invalid(Box::new(InvalidPlan {
            message,
            source_code: self.source.clone(),
            span: span.into(),
            label: label.to_owned(),
            help,
        }))
    }
}

fn resolve_options(raw: &RawOptions, base: &Path, at: &Locator) -> Result<PlanOptions, PlanError> {
    let jobs = match &raw.jobs {
        None => None,
        Some(jobs) => match usize::try_from(*jobs.get_ref()) {
            Ok(n) if n > 0 => Some(n),
            _ => {
                return Err(at.error(
                    jobs.span(),
                    "`jobs` must be a positive number of parallel compiles".into(),
                    "not positive",
                    Some("leave it out to use one job per core".into()),
                ));
            }
        },
    };
    if let Some(remote) = &raw.remote {
        tpuc_remote::RemoteUrl::parse(remote.get_ref()).map_err(|error| {
            let help = miette::Diagnostic::help(&error).map(|h| h.to_string());
            at.error(remote.span(), error.to_string(), "this location", help)
        })?;
    }
    if let Some(endpoint) = &raw.endpoint {
        let text = endpoint.get_ref();
        if !(text.starts_with("http://") || text.starts_with("https://")) {
            return Err(at.error(
                endpoint.span(),
                format!("the endpoint `{text}` is not an http:// or https:// URL"),
                "not a URL",
                Some("e.g. endpoint = \"https://storage.example.com\"".into()),
            ));
        }
    }
    if let Some(target) = &raw.kernel_target
        && !["tpu", "cpu"].contains(&target.get_ref().as_str())
    {
        return Err(at.error(
            target.span(),
            format!(
                "`kernel_target` must be \"tpu\" or \"cpu\", not `{}`",
                target.get_ref()
            ),
            "not a kernel target",
            None,
        ));
    }
    let mut trust_keys = Vec::new();
    for key in raw.trust_keys.iter().flatten() {
        let path = base.join(key.get_ref());
        if !path.is_file() {
            return Err(at.error(
                key.span(),
                format!("the trusted key file `{}` does not exist", key.get_ref()),
                "no file here",
                Some(format!(
                    "paths are relative to the plan's directory ({}); make a key pair with \
                     `tpuc cache keygen FILE` and list FILE.pub",
                    base.display()
                )),
            ));
        }
        trust_keys.push(path);
    }
    Ok(PlanOptions {
        jobs,
        trust_keys,
        remote: raw.remote.as_ref().map(|r| r.get_ref().clone()),
        endpoint: raw.endpoint.as_ref().map(|e| e.get_ref().clone()),
        read_only: raw.read_only.unwrap_or(false),
        fuse: raw.fuse.unwrap_or(false),
        kernels: raw.kernels.as_ref().map(|k| base.join(k.get_ref())),
        kernel_target: raw.kernel_target.as_ref().map(|t| t.get_ref().clone()),
    })
}

fn resolve_entry<T>(
    entry: usize,
    raw: &RawModel,
    base: &Path,
    at: &Locator,
) -> Result<Vec<Item<T>>, PlanError>
where
    T: FromStr<Err = String> + Clone,
{
    let models = expand_glob(&raw.path, base, at)?;
    let targets = parse_targets::<T>(&raw.targets, at)?;
    let shapes = specialisations(&parse_dims(&raw.dims, &raw.buckets, at)?);
    let shard = raw.shard.as_ref().map(|shard| {
        if shard.ends_with(".toml") {
            base.join(shard).display().to_string()
        } else {
            shard.clone()
        }
    });
    let mut items = Vec::with_capacity(models.len() * shapes.len() * targets.len());
    for model in &models {
        for shape in &shapes {
            for target in &targets {
                items.push(Item {
                    model: model.clone(),
                    shape: shape.clone(),
                    target: target.clone(),
                    shard: shard.clone(),
                    mesh: raw.mesh.clone(),
                    optimizer: raw.optimizer.clone(),
                    kv_dtype: raw.kv_dtype.clone(),
                    entry,
                });
            }
        }
    }
    Ok(items)
}

/// The files `pattern` matches, relative to `base`, sorted. `*` and `?` stay within one
/// directory; `**` crosses directories.
fn expand_glob(
    pattern: &Spanned<String>,
    base: &Path,
    at: &Locator,
) -> Result<Vec<PathBuf>, PlanError> {
    let text = pattern.get_ref();
    let full = if Path::new(text).is_absolute() {
        text.clone()
    } else {
        let base = glob::Pattern::escape(&base.to_string_lossy());
        format!("{base}/{text}")
    };
    let options = MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    let matches = glob::glob_with(&full, options).map_err(|error| {
        at.error(
            pattern.span(),
            format!("`{text}` is not a valid path pattern: {}", error.msg),
            "this pattern",
            Some("patterns use *, ? and [...] within a directory, ** across directories".into()),
        )
    })?;
    let mut files: Vec<PathBuf> = matches
        .filter_map(Result::ok)
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(at.error(
            pattern.span(),
            format!("`{text}` matches no model file"),
            "no file here",
            Some(format!(
                "paths are relative to the plan's directory ({})",
                base.display()
            )),
        ));
    }
    Ok(files)
}

fn parse_targets<T>(raw: &Spanned<Vec<Spanned<String>>>, at: &Locator) -> Result<Vec<T>, PlanError>
where
    T: FromStr<Err = String> + Clone,
{
    if raw.get_ref().is_empty() {
        return Err(at.error(
            raw.span(),
            "a model entry needs at least one target".into(),
            "empty",
            Some("e.g. targets = [\"tpu:v5e:2x2\", \"cpu\"]".into()),
        ));
    }
    let mut targets: Vec<(String, T)> = Vec::new();
    for target in raw.get_ref() {
        let text = target.get_ref();
        let parsed = text
            .parse::<T>()
            .map_err(|message| at.error(target.span(), message, "this target", None))?;
        if !targets.iter().any(|(seen, _)| seen == text) {
            targets.push((text.clone(), parsed));
        }
    }
    Ok(targets.into_iter().map(|(_, target)| target).collect())
}

fn parse_dims(
    raw: &BTreeMap<Spanned<String>, Spanned<Vec<Spanned<i64>>>>,
    buckets: &BTreeMap<Spanned<String>, Spanned<String>>,
    at: &Locator,
) -> Result<BTreeMap<String, Vec<u64>>, PlanError> {
    let mut dims = BTreeMap::new();
    for (name, spec) in buckets {
        if raw.contains_key(name) {
            return Err(at.error(
                name.span(),
                format!("`{}` has both `dims` and `buckets`", name.get_ref()),
                "given twice",
                Some("list its sizes in one of them".into()),
            ));
        }
        let sizes = crate::shape::pow2_sizes(spec.get_ref())
            .map_err(|message| at.error(spec.span(), message, "not pow2:LO..HI", None))?;
        dims.insert(name.get_ref().clone(), sizes);
    }
    for (symbol, sizes) in raw {
        if sizes.get_ref().is_empty() {
            return Err(at.error(
                sizes.span(),
                format!("no sizes listed for symbol `{}`", symbol.get_ref()),
                "empty",
                Some("list one or more sizes, or drop the symbol to keep the example's".into()),
            ));
        }
        let mut values = Vec::new();
        for size in sizes.get_ref() {
            let value = u64::try_from(*size.get_ref())
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    at.error(
                        size.span(),
                        format!("`{}` is not a dimension size", size.get_ref()),
                        "not positive",
                        Some("sizes are positive integers".into()),
                    )
                })?;
            if !values.contains(&value) {
                values.push(value);
            }
        }
        dims.insert(symbol.get_ref().clone(), values);
    }
    Ok(dims)
}
