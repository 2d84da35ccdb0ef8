"""Cross-generation prediction (HALWPE, RastSim): the regression ensemble, stepwise selection, the
compiled forest, cross-validation, the tree sweep, feature ranking, applying a model, and the
command line.
"""
