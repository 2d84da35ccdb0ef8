"""Reading and validating the canonical tables: CSV/Parquet reading, workload tables, repeated runs."""
