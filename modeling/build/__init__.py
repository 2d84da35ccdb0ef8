"""Building data/ from public sources: the Rodinia GPU profiles and their counter metadata."""
