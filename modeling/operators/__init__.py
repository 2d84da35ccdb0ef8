"""Deep-learning operators and models on a GPU given only by its spec sheet (NeuSight's table).

``specs``: the spec sheet, validated, and edits; ``features``: roofline and tiles of an operator;
``model``: the roofline and the learned-utilisation predictor with GPU-level conformal intervals;
``cli``: ``python -m modeling operators``.
"""
