"""Simulator output (GPGPU-Sim / Accel-Sim logs, Accel-Sim's ``get_stats.py`` blocks, gem5 ``stats.txt``, a long
table) read into typed records with a workload key and a configuration key: see ``detect`` and ``records``."""
