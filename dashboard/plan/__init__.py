"""/plan: what to simulate next (modeling.plan) as a page: parameters, work, views, figures, report."""
