"""Settings for the whole test session (the test processes and every process they start).

One math thread per process, set before numpy or torch is first imported: the tests' networks are tiny,
and on two cores shared by two xdist workers (pyproject's ``-n 2``), the processes the tests start and
whatever else runs on the machine, idle OpenMP threads spinning on busy cores cost more than they
compute. Fitting a policy to 3,600 decisions (tests/agents/test_imitation.py) took 8.8 s of CPU with
torch's two default threads on a busy two-core machine and 0.5 s with one (the same fit: 0.754 agreement
with the teacher either way); in whole-suite runs there, that file took 57 s before this and 10 s after.
Training runs and the arena's workers already choose one thread themselves (``torch_threads: 1``,
``boardenvs_agents.arena.runner``); this gives the test processes the same. A value set in the
environment is kept.
"""

import os

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
