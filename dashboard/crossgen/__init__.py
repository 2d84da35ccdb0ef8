"""The cross-generation pages' own code: parameters, job kinds, work, figures."""
