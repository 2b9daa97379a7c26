use super::*;
use tpuc_pt2::DType;

fn placement(axes: &[(&str, usize)], layouts: Vec<Layout>) -> Placement {
    let places: Vec<Place> = layouts.into_iter().map(Place::Blocks).collect();
    Placement {
        kind: Kind::Partitions,
        axes: axes.iter().map(|&(n, s)| (n.to_owned(), s)).collect(),
        results: places.clone(),
        arguments: places,
        donated: Vec::new(),
    }
}

fn tensor(shape: &[i64]) -> HostTensor<'static> {
    let values: Vec<u8> = (0..element_count(shape) as u32)
        .flat_map(|v| v.to_le_bytes())
        .collect();
    HostTensor {
        dtype: DType::I32,
        shape: shape.to_vec(),
        bytes: Cow::Owned(values),
    }
}

fn values(tensor: &HostTensor<'_>) -> Vec<u32> {
    tensor
        .bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn axes(names: &[&str]) -> Vec<String> {
    names.iter().map(|&n| n.to_owned()).collect()
}

#[test]
fn a_2d_mesh_splits_rows_and_columns_and_reassembles() {
    // dp=2 major, tp=2 minor; rows over dp, columns over tp.
    let p = placement(
        &[("dp", 2), ("tp", 2)],
        vec![vec![axes(&["dp"]), axes(&["tp"])]],
    );
    let x = tensor(&[2, 4]);
    let shards = p.split_argument(0, &x).unwrap();
    let got: Vec<Vec<u32>> = shards.iter().map(values).collect();
    assert_eq!(got, [vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]]);
    assert_eq!(values(&p.assemble_result(0, shards).unwrap()), values(&x));
}

#[test]
fn two_axes_on_one_dimension_go_major_to_minor_and_unused_axes_replicate() {
    let p = placement(
        &[("a", 2), ("b", 2)],
        vec![vec![axes(&["b", "a"])], vec![vec![]]],
    );
    let x = tensor(&[8]);
    let got: Vec<Vec<u32>> = p
        .split_argument(0, &x)
        .unwrap()
        .iter()
        .map(values)
        .collect();
    // device (a, b): block b * 2 + a
    assert_eq!(got, [vec![0, 1], vec![4, 5], vec![2, 3], vec![6, 7]]);
    let replicated = p.split_argument(1, &x).unwrap();
    assert!(replicated.iter().all(|s| values(s) == values(&x)));
    assert_eq!(
        values(&p.assemble_result(1, replicated).unwrap()),
        values(&x)
    );
}

#[test]
fn per_rank_values_are_stacked_on_a_leading_dimension() {
    let p = Placement {
        kind: Kind::Replicas,
        axes: vec![(REPLICAS.to_owned(), 2)],
        arguments: vec![Place::PerDevice, Place::Blocks(Layout::new())],
        results: vec![Place::PerDevice],
        donated: Vec::new(),
    };
    let stacked = tensor(&[2, 3]);
    let shards = p.split_argument(0, &stacked).unwrap();
    assert_eq!(shards[1].shape, [3]);
    assert_eq!(values(&shards[1]), [3, 4, 5]);
    assert_eq!(p.split_argument(1, &stacked).unwrap()[1].shape, [2, 3]);
    let whole = p.assemble_result(0, shards).unwrap();
    assert_eq!(whole.shape, [2, 3]);
    assert_eq!(values(&whole), values(&stacked));
    let error = p.split_argument(0, &tensor(&[])).unwrap_err();
    assert!(error.to_string().contains("rank 0"), "{error}");
}

#[test]
fn a_dimension_the_axes_do_not_divide_is_an_error() {
    let p = placement(&[("x", 4)], vec![vec![axes(&["x"])]]);
    let error = p.split_argument(0, &tensor(&[6])).unwrap_err();
    assert!(
        error.to_string().contains("does not split into 4"),
        "{error}"
    );
}
