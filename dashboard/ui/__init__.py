"""Pieces every page uses: URL state, components, fields, share box, figure basics."""
