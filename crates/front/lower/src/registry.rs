//! The op registry: export target → signature and lowering function. Each op family in
//! [`crate::ops`] lists its entries in a `pub(super) const OPS: &[OpDef]`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::{DefKind, LowerFn, OpDef};
use crate::schema::OpSchema;

pub(crate) struct Entry {
    /// The ATen signature as written in the family's table.
    pub signature: Option<&'static str>,
    pub schema: Option<OpSchema>,
    pub lower: LowerFn,
    /// For an in-place variant derived from a functional op: that op's signature, which its
    /// lowering reads the arguments by.
    pub functional: Option<OpSchema>,
}

impl Entry {
    /// Lowers a node with this entry.
    pub fn run(&self, cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
        match &self.functional {
            Some(functional) => crate::ops::lower_in_place(cx, args, functional, self.lower),
            None => (self.lower)(cx, args),
        }
    }
}

pub(crate) struct Registry {
    entries: BTreeMap<String, Entry>,
    /// `op_` for every functional `op` in `entries` that has no entry of its own
    /// ([`OpSchema::in_place`]).
    in_place: BTreeMap<String, Entry>,
}

impl Registry {
    /// The registry of every op family, built once.
    pub fn get() -> &'static Registry {
        static REGISTRY: OnceLock<Registry> = OnceLock::new();
        REGISTRY.get_or_init(|| {
            Registry::build(crate::ops::FAMILIES.iter().flat_map(|f| f.iter()))
                .unwrap_or_else(|e| panic!("tpuc-lower's op table is malformed: {e}"))
        })
    }

    pub fn build<'a>(defs: impl Iterator<Item = &'a OpDef>) -> Result<Registry, String> {
        let mut entries = BTreeMap::new();
        for def in defs {
            let (target, schema, signature) = match def.kind {
                DefKind::Aten(signature) => {
                    let schema = OpSchema::parse(signature)?;
                    (schema.target(), Some(schema), Some(signature))
                }
                DefKind::Target(target) => (target.to_owned(), None, None),
            };
            let entry = Entry {
                signature,
                schema,
                lower: def.lower,
                functional: None,
            };
            if entries.insert(target.clone(), entry).is_some() {
                return Err(format!("`{target}` is registered twice"));
            }
        }
        let mut in_place = BTreeMap::new();
        for entry in entries.values() {
            let Some(functional) = &entry.schema else {
                continue;
            };
            let Some(schema) = functional.in_place() else {
                continue;
            };
            let target = schema.target();
            if entries.contains_key(&target) {
                continue;
            }
            in_place.insert(
                target,
                Entry {
                    signature: None,
                    schema: Some(schema),
                    lower: entry.lower,
                    functional: Some(functional.clone()),
                },
            );
        }
        Ok(Registry { entries, in_place })
    }

    pub fn lookup(&self, target: &str) -> Option<&Entry> {
        self.entries
            .get(target)
            .or_else(|| self.in_place.get(target))
    }

    /// The in-place variants derived from functional entries, by target.
    pub fn in_place_targets(&self) -> impl Iterator<Item = &str> {
        self.in_place.keys().map(String::as_str)
    }

    pub fn targets(&'static self) -> impl Iterator<Item = &'static str> {
        self.entries.keys().map(String::as_str)
    }

    pub fn entries(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_table_parses_without_duplicates() {
        Registry::build(crate::ops::FAMILIES.iter().flat_map(|f| f.iter())).unwrap();
    }

    #[test]
    fn in_place_variants_come_from_functional_entries() {
        let registry = Registry::get();
        for target in [
            "torch.ops.aten.silu_.default",
            "torch.ops.aten.hardswish_.default",
            "torch.ops.aten.dropout_.default",
            "torch.ops.aten.clamp_.default",
        ] {
            let entry = registry
                .lookup(target)
                .unwrap_or_else(|| panic!("{target}"));
            assert!(entry.functional.is_some(), "{target}");
        }
        assert!(registry.lookup("torch.ops.aten.cat_.default").is_none());
        assert!(registry.lookup("torch.ops.aten.__and___.Tensor").is_none());
    }
}
