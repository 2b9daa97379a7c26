//! The world a program with functional collectives was written for: how many ranks run it.
//!
//! torch records a collective's group by name only; `all_gather_into_tensor`,
//! `reduce_scatter_tensor` and `all_to_all_single` also record its size. tpuc lowers
//! collectives over the default group, so every size the graph records must agree, and agree
//! with [`LowerOptions::world_size`](crate::LowerOptions::world_size) when that is given.

use tpuc_pt2::schema::{Argument, Graph};

use crate::error::LowerError;

const COLLECTIVES: &str = "torch.ops._c10d_functional.";

/// `None` for a program without collectives; otherwise the number of ranks.
pub fn world_size(graph: &Graph, given: Option<u32>) -> Result<Option<u32>, LowerError> {
    let mut collectives = false;
    let mut recorded: Vec<(u32, String)> = Vec::new();
    for (_, node) in graph.walk() {
        let Some(op) = node.target.strip_prefix(COLLECTIVES) else {
            continue;
        };
        collectives = true;
        let size = match op {
            "all_gather_into_tensor.default" | "reduce_scatter_tensor.default" => {
                match node.input("group_size") {
                    Some(Argument::AsInt(size)) => Some(*size),
                    _ => None,
                }
            }
            "all_to_all_single.default" => match node.input("input_split_sizes") {
                Some(Argument::AsInts(sizes)) => Some(sizes.len() as i64),
                _ => None,
            },
            _ => None,
        };
        if let Some(size) = size {
            let size =
                u32::try_from(size)
                    .ok()
                    .filter(|&s| s > 0)
                    .ok_or_else(|| LowerError::Program {
                        message: format!("a collective records a group of {size} ranks"),
                        help: None,
                    })?;
            recorded.push((
                size,
                node.name.clone().unwrap_or_else(|| node.target.clone()),
            ));
        }
    }
    if !collectives {
        return Ok(None);
    }
    let mut sizes = recorded.iter().map(|(size, _)| *size).chain(given);
    let Some(world) = sizes.next() else {
        return Err(LowerError::Program {
            message: "the program has collectives, but nothing in it says how many ranks run it"
                .to_owned(),
            help: Some("give the number of ranks with --world-size N".to_owned()),
        });
    };
    if let Some((size, node)) = recorded.iter().find(|(size, _)| *size != world) {
        return Err(LowerError::Program {
            message: format!(
                "collectives disagree on the number of ranks: `{node}` spans {size}, \
                 another {world}"
            ),
            help: Some(
                "tpuc lowers collectives over the default group (all ranks) only; sub-groups' \
                 ranks are not recorded in the archive"
                    .to_owned(),
            ),
        });
    }
    if let Some(given) = given.filter(|&given| given != world) {
        return Err(LowerError::Program {
            message: format!(
                "--world-size {given} was given, but the program's collectives span {world} ranks"
            ),
            help: Some(format!("pass --world-size {world}, or leave it out")),
        });
    }
    Ok(Some(world))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpuc_pt2::schema::{NamedArgument, Node};

    fn collective(op: &str, name: &str, inputs: &[(&str, Argument)]) -> Node {
        Node {
            target: format!("{COLLECTIVES}{op}"),
            name: Some(name.to_owned()),
            inputs: inputs
                .iter()
                .map(|(arg_name, arg)| NamedArgument {
                    name: (*arg_name).to_owned(),
                    arg: arg.clone(),
                    kind: Some(1),
                })
                .collect(),
            ..Default::default()
        }
    }

    fn graph(nodes: Vec<Node>) -> Graph {
        Graph {
            nodes,
            ..Default::default()
        }
    }

    fn gather(name: &str, size: i64) -> Node {
        collective(
            "all_gather_into_tensor.default",
            name,
            &[("group_size", Argument::AsInt(size))],
        )
    }

    #[test]
    fn the_world_comes_from_the_graph_or_the_option() {
        assert_eq!(world_size(&Graph::default(), Some(8)).unwrap(), None);
        let sized = graph(vec![gather("g", 4)]);
        assert_eq!(world_size(&sized, None).unwrap(), Some(4));
        assert_eq!(world_size(&sized, Some(4)).unwrap(), Some(4));
        let all_to_all = graph(vec![collective(
            "all_to_all_single.default",
            "a",
            &[("input_split_sizes", Argument::AsInts(vec![2, 2]))],
        )]);
        assert_eq!(world_size(&all_to_all, None).unwrap(), Some(2));
        let reduce_only = graph(vec![collective("all_reduce.default", "r", &[])]);
        assert_eq!(world_size(&reduce_only, Some(8)).unwrap(), Some(8));
    }

    #[test]
    fn a_world_that_cannot_be_known_or_disagrees_is_an_error() {
        let reduce_only = graph(vec![collective("all_reduce.default", "r", &[])]);
        let error = world_size(&reduce_only, None).unwrap_err();
        assert!(format!("{error:?}").contains("--world-size"), "{error:?}");
        let mixed = graph(vec![gather("g", 4), gather("h", 2)]);
        let error = world_size(&mixed, None).unwrap_err();
        assert!(error.to_string().contains("`h` spans 2"), "{error}");
        let error = world_size(&graph(vec![gather("g", 4)]), Some(2)).unwrap_err();
        assert!(error.to_string().contains("span 4 ranks"), "{error}");
    }
}
