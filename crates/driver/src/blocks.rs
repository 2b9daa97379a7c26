//! Blocks of a tensor: the rectangular pieces one device holds, cut out of a whole host tensor
//! and pasted back into one.

use crate::tensor::HostTensor;

/// One device's block of a tensor: where it starts, its size, and whether this device is the
/// one whose copy is used when blocks replicated over other axes are put back together.
#[derive(Debug)]
pub(crate) struct Block {
    pub starts: Vec<i64>,
    pub sizes: Vec<i64>,
    pub full: Vec<i64>,
    pub is_primary: bool,
}

pub(crate) fn element_count(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d as usize).product()
}

/// Calls `run(source_offset, length)` for every contiguous run of a block, in row-major order,
/// with offsets in elements of the full tensor.
fn for_each_run(block: &Block, mut run: impl FnMut(usize, usize)) {
    let rank = block.full.len();
    if rank == 0 {
        run(0, 1);
        return;
    }
    if block.sizes.contains(&0) {
        return;
    }
    let inner = block.sizes[rank - 1] as usize;
    let mut index = vec![0i64; rank - 1];
    loop {
        let offset = (0..rank).fold(0usize, |offset, dim| {
            let at = block.starts[dim] + index.get(dim).copied().unwrap_or(0);
            offset * block.full[dim] as usize + at as usize
        });
        run(offset, inner);
        let mut dim = rank - 1;
        loop {
            if dim == 0 {
                return;
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < block.sizes[dim] {
                break;
            }
            index[dim] = 0;
        }
    }
}

pub(crate) fn copy_block(tensor: &HostTensor<'_>, block: &Block) -> Vec<u8> {
    let itemsize = tensor.dtype.itemsize();
    let mut out = Vec::with_capacity(element_count(&block.sizes) * itemsize);
    for_each_run(block, |offset, length| {
        out.extend_from_slice(&tensor.bytes[offset * itemsize..(offset + length) * itemsize]);
    });
    out
}

pub(crate) fn paste_block(whole: &mut HostTensor<'static>, block: &Block, bytes: &[u8]) {
    let itemsize = whole.dtype.itemsize();
    let target = whole.bytes.to_mut();
    let mut read = 0;
    for_each_run(block, |offset, length| {
        let count = length * itemsize;
        target[offset * itemsize..offset * itemsize + count]
            .copy_from_slice(&bytes[read..read + count]);
        read += count;
    });
}
