"""The /new-app page's parameters (kinds), job (work), what it shows (views: rows, columns, facts; sections: the
Dash components of its results), figures and the report of a GPU never measured."""
