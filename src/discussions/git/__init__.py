"""Git collaboration: the block merge, the merge driver, init, resolve, checks."""
