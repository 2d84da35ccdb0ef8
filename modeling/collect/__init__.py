"""Measuring on this machine: offload timing tables (openssl)."""
