"""/operators: deep-learning operators and models on a listed, edited or never-built GPU (NeuSight's table)."""
