"""The application layer: the `onlineboost` command (run loop, record sources and sinks,
checkpoints, run configuration, the Table 1 sweep, execution backends).

It sits above the mathematics and is never imported by it.
"""
