"""The two situations a prediction's intervals are built for, by name: the values every command line, page,
job parameter and saved result use."""

#: Applications already measured, at new inputs: intervals from random K-fold residuals.
NEW_INPUTS = "new-inputs"
#: Applications not in the training data: intervals from holding whole applications out.
NEW_APPLICATIONS = "new-applications"

#: Each situation and its words on a page.
SITUATIONS = {
    NEW_INPUTS: "known applications at new inputs",
    NEW_APPLICATIONS: "applications not in the training data",
}
