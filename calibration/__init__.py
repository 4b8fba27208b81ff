"""Camera intrinsics, board corners and colour models, saved as versioned JSON profiles."""
