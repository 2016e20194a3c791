"""What inspect-ai's entry point imports (`[project.entry-points.inspect_ai]` in
pyproject.toml): every sub-task registered as a `@task`, so `inspect eval
scholarbench/taxobench_bottom_up` finds it. The tasks are also this module's attributes."""
from scholarbench.inspect_tasks.tasks import register_tasks

globals().update(register_tasks())
