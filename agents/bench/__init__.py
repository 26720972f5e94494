"""The research benchmark (``boardenvs-bench``, docs/benchmark.md): a fixed, versioned suite of tasks
(:mod:`.suite`), one protocol for every algorithm (:mod:`.protocol`), normalized scores aggregated with
rliable (:mod:`.scores`), and the tables and plots of a results folder (:mod:`.report`)."""
