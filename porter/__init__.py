"""porter: a HIP/ROCm porting assistant for CUDA C++ and Triton code."""

__version__ = "0.1.0"

#: True when porter runs as its own console script (cli.entry), a short-lived process of its own:
#: what a library user's process must not get as a side effect (a global garbage-collector
#: freeze, see mappings.index._load_pickle) is then allowed.
OWN_PROCESS = False
