"""The /new-app page's parameters, job and figures (estimates for an application never run on the target)."""
