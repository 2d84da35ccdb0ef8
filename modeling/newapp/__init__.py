"""A new application on a new GPU: estimates with ranges for an application never run on the target.

``data`` builds the table (shipped pair of GPUs or any workload table), ``estimators`` the naive ratios,
the spec roofline and one-run calibration, ``evaluate`` holds applications (or kernels) out,
``application`` estimates one held-out application, ``warnings`` says when not to trust the numbers.
"""
