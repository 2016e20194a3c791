"""One package per benchmark: everything of its own (tasks, agents only it uses, scorer, judge,
report section, published rows). Each package's `__init__` registers its `Benchmark` subclass;
the registry imports every package here on first lookup."""
