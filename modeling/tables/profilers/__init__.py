"""Profiler output (Nsight Compute, nvprof, rocprof / rocprof-compute) read into launches, turned into
workloads and joined host + target into one workload table: see ``detect``, ``workloads``, ``join``."""
