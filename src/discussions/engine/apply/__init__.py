"""`apply`: a decided discussion carried into code by a lead chosen by its capabilities, in a
disposable clone of its own and a sandbox, recorded as an ``APPLY`` block."""
