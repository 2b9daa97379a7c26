//! The front-end cache: a program's built module is stored under its front-end key, so a warm
//! compile reads neither the weights nor runs the front or middle end.

use std::path::Path;

use tpuc_cache::{Cache, Digest, Key, ModuleRecord, sha256};

use crate::error::Result;
use crate::frontend::ProgramSource;
use crate::middle::build;
use crate::options::Options;
use crate::record::module_record;
use crate::target::Target;
use crate::tiers::not_stored;

/// The built modules of one program for several targets: a sharded module depends on the
/// target's device count, an unsharded one is the same for all.
pub(crate) struct Frontends {
    source: ProgramSource,
    name: String,
    built: Vec<(u64, Frontend)>,
}

/// A program's built module: from the cache, or built now and stored.
pub(crate) struct Frontend {
    pub key: Key,
    pub hit: bool,
    pub module_sha256: Digest,
    pub module: ModuleRecord,
    /// What the passes did, when the program was built now.
    pub passes: Option<tpuc_passes::PipelineReport>,
}

impl Frontends {
    pub fn new(model: &Path) -> Result<Self> {
        Ok(Frontends {
            source: ProgramSource::open(model)?,
            name: model.display().to_string(),
            built: Vec::new(),
        })
    }

    /// The program the front ends are built from, opened once.
    pub fn source(&self) -> &ProgramSource {
        &self.source
    }

    pub fn for_target(
        &mut self,
        target: &Target,
        options: &Options,
        cache: &Cache,
        warnings: &mut Vec<String>,
    ) -> Result<&Frontend> {
        let devices = if options.pipeline.sharding.is_some() {
            target.devices()
        } else {
            0
        };
        let index = match self.built.iter().position(|(d, _)| *d == devices) {
            Some(index) => index,
            None => {
                let options = options.for_target(target);
                let frontend = self.frontend(&options, cache, warnings)?;
                self.built.push((devices, frontend));
                self.built.len() - 1
            }
        };
        Ok(&self.built[index].1)
    }

    /// The first target's front end (or the program's own, without targets).
    pub fn into_first(
        mut self,
        options: &Options,
        cache: &Cache,
        warnings: &mut Vec<String>,
    ) -> Result<Frontend> {
        if self.built.is_empty() {
            return self.frontend(options, cache, warnings);
        }
        Ok(self.built.swap_remove(0).1)
    }

    fn frontend(
        &self,
        options: &Options,
        cache: &Cache,
        warnings: &mut Vec<String>,
    ) -> Result<Frontend> {
        let key = self.source.key_parts(options)?.key();
        let cached = cache.frontend(&key).unwrap_or_else(|error| {
            warnings.push(format!("{error}; building the program again"));
            None
        });
        if let Some((module_sha256, module)) = cached {
            return Ok(Frontend {
                key,
                hit: true,
                module_sha256,
                module,
                passes: None,
            });
        }
        let built = build(&self.source, &self.name, options)?;
        warnings.extend(built.warnings.iter().cloned());
        if let Some(report) = &built.passes.sharding {
            warnings.extend(report.assignment.notes.iter().cloned());
        }
        let module = module_record(&built);
        let module_sha256 = sha256(module.text.as_bytes());
        if let Err(error) = cache.insert_module(&key, &module) {
            warnings.push(not_stored(&error));
        }
        Ok(Frontend {
            key,
            hit: false,
            module_sha256,
            module,
            passes: Some(built.passes),
        })
    }
}
