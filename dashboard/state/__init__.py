"""What the dashboard keeps on disk: datasets, staged uploads, saved scenarios, timing tables."""
