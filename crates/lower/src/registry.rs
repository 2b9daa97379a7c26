//! The op registry: export target → signature and lowering function. Each op family in
//! [`crate::ops`] lists its entries in a `pub(super) const OPS: &[OpDef]`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;
use crate::schema::OpSchema;

/// Lowers one node: gets its arguments, returns one value per node output (`Val::None` for
/// outputs nobody uses).
pub(crate) type LowerFn = fn(&mut Cx<'_>, &Args<'_>) -> OpResult<Vec<Val>>;

/// One registry entry as an op family declares it.
#[derive(Clone, Copy)]
pub(crate) struct OpDef {
    pub kind: DefKind,
    pub lower: LowerFn,
}

#[derive(Clone, Copy)]
pub(crate) enum DefKind {
    /// An ATen overload, by its signature.
    Aten(&'static str),
    /// Another target (`torch.ops.higher_order.cond`, `_operator.mul`), arguments by position
    /// or by the names the node gives them.
    Target(&'static str),
}

/// An ATen overload with its `native_functions.yaml` signature.
pub(crate) const fn aten(signature: &'static str, lower: LowerFn) -> OpDef {
    OpDef {
        kind: DefKind::Aten(signature),
        lower,
    }
}

/// A non-ATen target.
pub(crate) const fn target(target: &'static str, lower: LowerFn) -> OpDef {
    OpDef {
        kind: DefKind::Target(target),
        lower,
    }
}

pub(crate) struct Entry {
    /// The ATen signature as written in the family's table.
    pub signature: Option<&'static str>,
    pub schema: Option<OpSchema>,
    pub lower: LowerFn,
}

pub(crate) struct Registry {
    entries: BTreeMap<String, Entry>,
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
            };
            if entries.insert(target.clone(), entry).is_some() {
                return Err(format!("`{target}` is registered twice"));
            }
        }
        Ok(Registry { entries })
    }

    pub fn lookup(&self, target: &str) -> Option<&Entry> {
        self.entries.get(target)
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
}
