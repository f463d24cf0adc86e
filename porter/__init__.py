"""porter: a HIP/ROCm porting assistant for CUDA C++ and Triton code."""

__version__ = "0.1.0"
