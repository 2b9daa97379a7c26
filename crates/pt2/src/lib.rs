//! Reader for torch.export .pt2 archives.
