"""The /data page's import of profiler output (Nsight Compute, nvprof, rocprof): staging and the card."""
